"""The bake model: HCL parsing and evaluation (``hcl``), bake files evaluated exactly as buildx
does (``bake``, ``bakefile``), the component table (``components``), the component x arch cells
(``graph``) and the buildx ``--allow`` grants (``entitlements``)."""

"""Checks on the bake file: pin drift against upstream and policy lints (to come)."""

"""The S3 store of the tests: moto's server on loopback (scripts/s3.sh), a bucket and an access
key of this test session's own, and the bucket's objects counted (boto3, moto's dependency)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from tests.conftest import ROOT, missing

REGION = "us-east-1"
PORT = int(os.environ.get("ROCM_BAKE_S3_PORT", "9000"))
# Everything allowed: authentication (a known key, the right signature) is what is tested.
POLICY = {"Version": "2012-10-17",
          "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


@dataclass(frozen=True)
class S3Store:
    """A bucket on the loopback S3 server; ``bucket_base`` is what SCCACHE_S3_BUCKET names (the
    bucket itself is ``<base>-<environment>``); the key pair is this session's."""

    endpoint: str
    bucket_base: str
    environment: str
    access_key: str
    secret_key: str
    run_dir: Path = Path("/tmp/rocm-bake-s3")

    @property
    def log(self) -> Path:
        """moto's log: one line per request, every session's (filter by :attr:`bucket`)."""
        return self.run_dir / "server.log"

    @property
    def bucket(self) -> str:
        return f"{self.bucket_base}-{self.environment}"

    def credentials(self) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key}

    def _client(self) -> Any:
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=self.access_key,
                            aws_secret_access_key=self.secret_key)

    def keys(self, prefix: str = "") -> list[str]:
        """Every object key under ``prefix`` (pages followed)."""
        pages = self._client().get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix)
        return sorted(str(item["Key"]) for page in pages for item in page.get("Contents", []))


def start(run_dir: Path, environment: str = "ci") -> S3Store:
    """scripts/s3.sh start, then a user, its key and a bucket of this session's, created with
    the server's administrator key (authentication is on from its start: nothing is toggled,
    so sessions side by side cannot disturb one another)."""
    if not (ROOT / ".venv" / "bin" / "moto_server").is_file():
        missing("moto's S3 server (.venv/bin/moto_server)",
                ".venv/bin/python -m pip install --group dev")
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "s3.sh"), "start", str(run_dir)],
                          capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0:
        missing(f"the S3 store ({proc.stderr.strip()[-300:]})", "bash scripts/s3.sh start")
    endpoint = proc.stdout.strip()
    admin = json.loads((run_dir / "admin.json").read_text())
    setup = {"endpoint_url": endpoint, "region_name": REGION,
             "aws_access_key_id": admin["AWS_ACCESS_KEY_ID"],
             "aws_secret_access_key": admin["AWS_SECRET_ACCESS_KEY"]}
    uid = uuid.uuid4().hex[:10]
    iam = boto3.client("iam", **setup)
    user = f"rocm-bake-{uid}"
    iam.create_user(UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=json.dumps(POLICY))
    key = iam.create_access_key(UserName=user)["AccessKey"]
    boto3.client("s3", **setup).create_bucket(Bucket=f"rocm-bake-{uid}-{environment}")
    return S3Store(endpoint, f"rocm-bake-{uid}", environment, str(key["AccessKeyId"]),
                   str(key["SecretAccessKey"]), run_dir)

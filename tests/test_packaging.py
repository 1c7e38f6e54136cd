"""A non-editable install outside the repository still finds prompts and migrations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_ships_prompts_and_migrations(tmp_path):
    wheel_dir, target = tmp_path / "wheel", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheel_dir), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    [wheel] = list(wheel_dir.glob("sqlgenie-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    probe = (
        "import prompts, sqlgenie; from prompts import load_prompt;"
        "from sqlgenie.store.migrations import available_migrations;"
        "print(prompts.__file__); print(sqlgenie.__file__);"
        "print(len(load_prompt('llm_ping.txt').template) > 0); print(len(available_migrations()))"
    )
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    prompts_file, sqlgenie_file, has_prompt, n_migrations = out.stdout.split()
    assert prompts_file.startswith(str(target)) and sqlgenie_file.startswith(str(target))
    assert has_prompt == "True"
    assert int(n_migrations) == len(list((REPO / "sqlgenie/store/migrations").glob("[0-9][0-9][0-9][0-9]_*.sql")))

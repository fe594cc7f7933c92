"""Truth checks: what the real torch 2.13 / 2.14.1 / 2.15.0 releases do, per facts-file item.

`checks.py` lists the checks, `runner.py` runs them inside a given interpreter,
`setup_envs.sh` builds the interpreters, `tests/truth/test_truth_releases.py` asserts.
"""

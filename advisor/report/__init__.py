"""Outputs of a run: text/JSON/SARIF/GitHub/JUnit, the upgrade report and its validation scripts."""

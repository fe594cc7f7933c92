"""`advisor rehearse`: the upgrade rehearsed on the project's own tests, the one command besides `validate`
that runs the project's code. `hook` and `pytest_plugin` run inside the tests' process and import no advisor
module; the rest runs in advisor's own process, which never imports torch."""

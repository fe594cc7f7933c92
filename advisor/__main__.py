"""The `advisor` entry point (`python -m advisor` and the console script).

The interrupt handler is installed before the CLI's imports start, so a Ctrl-C at any
moment ends the run with one line and exit 130 (advisor.interrupt).
"""

from advisor import interrupt


def main() -> None:
    interrupt.install()
    try:
        from advisor.cli import main as cli_main  # after install(): the CLI's imports take a while
    except KeyboardInterrupt:
        interrupt.leave()
    cli_main()


if __name__ == "__main__":
    main()

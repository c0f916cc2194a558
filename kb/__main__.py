"""``python -m kb`` and the ``kb`` command: the CLI, quiet when stopped while it loads."""

import sys

INTERRUPTED_EXIT = 130  # 128 + SIGINT, the shell's convention


def main() -> None:
    """Console-script entry point: load the CLI, then run it (``kb.cli.main``).

    Loading takes most of a second (numpy, the extractors); Ctrl-C then stops kb with one line
    and exit 130 instead of an import traceback: nothing has been read or written yet.
    """
    try:
        from kb.cli import main as run_cli
    except KeyboardInterrupt:
        print("kb: interrupted while starting; nothing was done", file=sys.stderr)
        sys.exit(INTERRUPTED_EXIT)
    run_cli()


if __name__ == "__main__":
    main()

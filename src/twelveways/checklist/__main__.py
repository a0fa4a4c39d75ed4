"""``python -m twelveways.checklist audit ...`` / ``python -m twelveways.checklist import-csv ...``."""

import sys

USAGE = "usage: python -m twelveways.checklist {audit,import-csv} ..."


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("audit", "import-csv"):
        from ..errors import EXIT_UNUSABLE

        print(f"error: {USAGE}", file=sys.stderr)
        return EXIT_UNUSABLE
    if argv[0] == "audit":
        from .audit import audit_main

        return audit_main(argv[1:])
    from ..cli import import_csv_main

    return import_csv_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())

"""Creation dates a file's metadata gives, checked before time decay and date filters read them.

A PDF's /CreationDate, a DOCX's core properties and a web page's published time are a
generator's claims: a blank template's stamp (``authored_at``), a tool's zero date or a typo
in the future (``checked_metadata_date``) say nothing of when the document was written.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

METADATA_DATED = frozenset({"pdf", "docx", "html"})  # dated by a generator's metadata
EARLIEST_CREATED = datetime(1970, 1, 1, tzinfo=UTC)  # before: a zero date (Windows' 1601-01-01)
FUTURE_SLACK = timedelta(days=2)  # a date past now by more (time zones aside) is a typo


def checked_metadata_date(created: datetime) -> tuple[datetime | None, str | None]:
    """A creation date a file's metadata gives, checked: (the date or ``None``, a warning).

    One before ``EARLIEST_CREATED`` is a tool's zero date, no date: ``None`` (the caller
    takes the file's time). One past now by more than ``FUTURE_SLACK`` is kept and said, as a
    front matter's is (``kb.ingest.extract.frontmatter``): time decay reads the document as
    new until then. A trial's DOCX dated 2035 outranked the note that replaced it.
    """
    shown = created.date().isoformat()
    if created < EARLIEST_CREATED:
        return None, f"creation date {shown} in its metadata is no date (the file's time is used)"
    if created > datetime.now(UTC) + FUTURE_SLACK:
        return created, (f"creation date {shown} in its metadata is in the future: time decay "
                         "reads the document as new until then (a typo?)")
    return created, None


# creation times blank templates carry, which generators copy without stamping a date:
# python-docx's default.docx says 2013-12-23 23:15 UTC whatever day a script writes the file
# (and whatever author it sets)
TEMPLATE_STAMPS = frozenset({datetime(2013, 12, 23, 23, 15, tzinfo=UTC)})


def authored_at(created: datetime | None) -> datetime | None:
    """A DOCX's creation time, or ``None`` when it is a blank template's (``TEMPLATE_STAMPS``).

    Then the file's time stands for it (the ingest takes it when there is none). A trial's
    DOCX, written by a python-docx script that day, was dated 2013 and left out of
    ``--after`` searches.
    """
    if created is None:
        return None
    stamp = created if created.tzinfo else created.replace(tzinfo=UTC)
    return None if stamp in TEMPLATE_STAMPS else created

"""Sphinx extensions of the book: offline assets and notebook downloads (`book`), figure files
and the figure audit (`figures`), short cross-references of the API reference (`api_refs`)."""

"""The book's machinery: reading MyST chapters and making notebooks, editions and pages from them."""

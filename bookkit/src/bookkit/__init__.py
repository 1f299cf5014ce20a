"""The book's machinery: reading MyST chapters, making notebooks, editions and pages."""

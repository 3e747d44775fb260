"""Virtual eMRTD chip served through pcscd + vpcd (see README.md)."""

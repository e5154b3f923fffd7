"""The table: deck cryptography, ordering, log, transport and discovery."""

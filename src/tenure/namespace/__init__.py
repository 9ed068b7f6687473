"""The shared symbol namespace: names, trust tiers and lookups every store joins on."""

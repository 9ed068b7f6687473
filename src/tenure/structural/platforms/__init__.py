"""What each language's runtime defines (its globals, its types' methods), as data: languages.toml names
one per language (`platform`), read by resolve/generic.py (`LanguageRules`)."""

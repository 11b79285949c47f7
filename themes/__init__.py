"""The themes shipped with a2a-inspect (YAML files beside this one), installed as
``inspector.themes``; see inspector/ui/themes.py for the format."""

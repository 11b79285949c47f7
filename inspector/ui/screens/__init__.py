"""Screens: the main screen and the modals.

A widget asks for a modal by name (``messages.OpenModal``); the app looks the name up
here. Imported when first asked for: most sessions open few of them."""

from __future__ import annotations

from typing import Any

#: name -> (module in this package, screen class)
MODALS = {
    "agent_form": ("agent_form", "AgentForm"),
    "binding_menu": ("binding_menu", "BindingMenu"),
    "confirm": ("confirm", "ConfirmScreen"),
    "dialect_menu": ("dialect_menu", "DialectMenu"),
    "file_pick": ("file_pick", "FilePickScreen"),
    "json_edit": ("json_edit", "JsonEditScreen"),
    "prompt": ("prompt", "PromptScreen"),
    "save_file": ("save_file", "SaveFileScreen"),
}


def modal(name: str) -> Any:
    """The screen class of modal ``name`` (KeyError for a name not in MODALS)."""
    import importlib

    module, cls = MODALS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)

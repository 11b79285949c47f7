"""``self.app`` typed as the inspector's app, for the widgets and screens that call it.

Textual types ``app`` as ``App[object]``, so a widget calling the app's own methods
(``report_error``, ``select_task``, ``active``) would need a cast at every call. Mixed in
before the Textual base, this class narrows the type with Textual's own
``getters.app``, for the checker only: at run time it adds nothing to the class (the
getter would import the app module, which imports the widgets, and check the app's class
on every access), and ``app`` stays Textual's property.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import getters
    from textual.message_pump import MessagePump

    from .app import InspectorApp

    class InspectorAppNode(MessagePump):
        app = getters.app(InspectorApp)

else:

    class InspectorAppNode:
        __slots__ = ()

"""Textual's Footer, made again once per burst of key changes rather than once per change,
only when the keys it shows changed, and then by changing the keys it has in place."""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby
from typing import Any, NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Label

#: A footer with more widgets than this (shown and kept hidden) is made again whole.
MOST_CHILDREN = 60


class KeyShown(NamedTuple):
    """One key as Footer.compose makes it (a FooterKey's arguments)."""

    key: str
    display: str
    description: str
    action: str
    disabled: bool
    tooltip: str
    palette: bool = False


class GroupShown(NamedTuple):
    """A binding group as Footer.compose makes it: a KeyGroup of keys, then a FooterLabel."""

    compact: bool
    keys: tuple[KeyShown, ...]
    label: str


class KeyFooter(Footer):
    """The footer every screen of ours shows.

    Textual's Footer makes all its keys again (removes them and mounts new ones) each
    time the screen says its keys changed, and a screen says so up to three times for
    one change of focus (the focus itself, a refresh after it, a screen resuming): three
    rebuilds of the same keys, each key styled twice as it mounts. Here a change that
    comes while a rebuild is already on its way is left to that rebuild, which reads the
    screen's keys when it runs: measured at the start of the app, 36 footer keys mounted
    and styled became 12 (~10 ms of CPU); in the snapshot session, ~600 rebuilds ~250.

    A rebuild that is still needed (the focus moved to a widget with other keys: every
    view key, most Tabs) changes the keys already mounted in place, and hides those left
    over for a later rebuild to reuse: mounting, styling and laying out ~8 new keys was
    ~25 ms of CPU per view key or change of focus. A footer without enough keys of the
    right kind (the first keys of a view with more keys, or with a binding group) hides
    those it has and has Textual make the new ones.
    """

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        #: A rebuild is scheduled and has not read the screen's keys yet.
        self._rebuild_due = False
        #: What the keys shown now were made from (see ``_keys``).
        self._made_from: Any = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_due and screen is self.screen:
            return
        super().bindings_changed(screen)
        # Textual schedules the rebuild only in these cases (and then always).
        self._rebuild_due = bool(screen.app.app_focus and self.is_attached and screen is self.screen)
        if self._rebuild_due and not self.children:
            # The screen's first keys: Textual makes them after the next refresh, the
            # screen's first frame, and they showed only in a second one, with a layout
            # and a whole repaint of their own (~60 ms of CPU per start). Made now, they
            # are in the first frame. The rebuild Textual scheduled finds them made.
            self.call_next(self.recompose)

    def _keys(self) -> Any:
        """All that Footer.compose reads to make the keys."""
        app = self.app
        return (
            self.compact,
            self.show_command_palette,
            tuple(
                (binding.key, binding.action, binding.description, binding.tooltip, binding.group, enabled, tip)
                for (_node, binding, enabled, tip) in self.screen.active_bindings.values()
                if binding.show or binding.key == app.COMMAND_PALETTE_BINDING
            ),
        )

    async def recompose(self) -> None:
        if not (self.is_attached and self.children and len(self.children) <= MOST_CHILDREN):
            await super().recompose()
            return
        keys = self._keys()
        if keys == self._made_from:
            self._rebuild_due = False  # as compose would: the next change rebuilds
            return
        if self._change_in_place():
            self._rebuild_due = False
            self._made_from = keys
            return
        # Not enough keys of the right kind: the ones there wait, hidden, for later
        # rebuilds (made again, they went back and forth between two views' keys).
        async with self.batch():
            for child in self.children:
                child.display = False
            await self.mount_compose(self.compose())

    def compose(self) -> ComposeResult:
        self._rebuild_due = False  # any change from here on needs a rebuild of its own
        made = 0
        for key in super().compose():
            made += 1
            yield key
        # Before the screen's keys are ready, Footer.compose makes none.
        self._made_from = self._keys() if made else None

    def _shown(self) -> list[KeyShown | GroupShown]:
        """What Footer.compose would make now, in its order (the same rules)."""
        app = self.app
        active = self.screen.active_bindings
        by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        shown: list[KeyShown | GroupShown] = []
        for group, runs in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            same_group = list(runs)
            if group is not None and len(same_group) > 1:
                keys = tuple(
                    _key_shown(app, b, on, tip or b.description, description="")
                    for b, on, tip in (bindings[0] for bindings in same_group)
                )
                shown.append(GroupShown(group.compact, keys, group.description))
                continue
            for binding, enabled, tooltip in (bindings[0] for bindings in same_group):
                shown.append(_key_shown(app, binding, enabled, tooltip))
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = active.get(app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, _tooltip = palette
                shown.append(_key_shown(app, binding, enabled, binding.tooltip or binding.description, palette=True))
        self.styles.grid_size_columns = len(by_action)  # as Footer.compose sets it
        return shown

    def _change_in_place(self) -> bool:
        """Show the screen's keys with the widgets this footer has (shown or hidden);
        False, having changed nothing, when it lacks one of the right kind."""
        # Footer's key widgets are not public classes: they are told apart by CSS type.
        keys = list(self.query_children("FooterKey"))
        groups = list(self.query_children("KeyGroup"))
        labels = list(self.query_children("FooterLabel"))
        plan: list[tuple[Widget, KeyShown | GroupShown | str]] = []
        for shown in self._shown():
            if isinstance(shown, KeyShown):
                # The disabled state is fixed when a key is made (it decides what a click does).
                key = next((k for k in keys if _fits(k, shown)), None)
                if key is None:
                    return False
                keys.remove(key)
                plan.append((key, shown))
                continue
            group = next((g for g in groups if _group_fits(g, shown)), None)
            if group is None or not labels:
                return False
            groups.remove(group)
            plan.append((group, shown))
            plan.append((labels.pop(0), shown.label))
        with self.app.batch_update():
            for left_over in (*keys, *groups, *labels):
                left_over.display = False
            before: Widget | None = None
            for widget, what in plan:
                if isinstance(what, KeyShown):
                    _show_key(widget, what)
                elif isinstance(what, GroupShown):
                    for key, in_group in zip(widget.children, what.keys, strict=True):
                        _show_key(key, in_group)
                elif isinstance(widget, Label) and str(widget.content) != what:
                    widget.update(what)
                widget.display = True
                children = self.children
                if before is not None and children.index(widget) < children.index(before):
                    self.move_child(widget, after=before)
                before = widget
        return True


def _key_shown(
    app: Any, binding: Binding, enabled: bool, tooltip: str, *, description: str | None = None, palette: bool = False
) -> KeyShown:
    """The FooterKey Footer.compose makes of ``binding`` (``description``: its text, when
    not the binding's own; a key in a group has none)."""
    return KeyShown(
        binding.key,
        app.get_key_display(binding),
        binding.description if description is None else description,
        binding.action,
        not enabled,
        tooltip,
        palette,
    )


def _fits(key: Widget, shown: KeyShown) -> bool:
    return key.has_class("-disabled") == shown.disabled and key.has_class("-command-palette") == shown.palette


def _group_fits(group: Widget, shown: GroupShown) -> bool:
    keys = group.children
    return (
        group.has_class("-compact") == shown.compact
        and len(keys) == len(shown.keys)
        and all(_fits(key, in_group) for key, in_group in zip(keys, shown.keys, strict=True))
    )


def _show_key(key: Any, shown: KeyShown) -> None:
    """Make FooterKey ``key`` show ``shown`` (what its constructor would have made of it)."""
    if (key.key, key.key_display, key.description, key.action, key.tooltip or "") == (
        shown.key,
        shown.display,
        shown.description,
        shown.action,
        shown.tooltip or "",
    ):
        return
    key.key = shown.key
    key.key_display = shown.display
    key.description = shown.description
    key.action = shown.action
    key.tooltip = shown.tooltip or None
    key.clear_cached_dimensions()  # its width follows its text
    key.refresh(layout=True)

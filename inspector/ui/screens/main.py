"""The main screen: connection bar, agents, and the views of the active connection."""

from __future__ import annotations

from typing import Any, ClassVar, Self, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import TabbedContent, TabPane

from ..messages import ComposeText, ConnectionChanged, SessionAdvanced, TaskSelected
from ..typed_app import InspectorAppNode
from ..widgets.agents_panel import AgentsPanel
from ..widgets.artifacts_view import ArtifactsView
from ..widgets.base import ConnectionView, leaving
from ..widgets.composer import Composer
from ..widgets.connection_bar import ConnectionBar
from ..widgets.conversation import Conversation
from ..widgets.key_footer import KeyFooter
from ..widgets.state_diagram import StateDiagram
from ..widgets.task_beside import TaskBeside
from .toast_repaint import repaint_where_toasts_leave

#: Narrower than this, the agents sidebar starts hidden (ctrl+b shows it).
SIDEBAR_MIN_WIDTH = 100
#: Shorter than this, the composer and the state diagram take less room.
SHORT_SCREEN = 32
#: Narrower than this, two tasks side by side leave out the selected one's state column.
NARROW_SCREEN = 140
#: Below this width the task's panes stack (inspector.tcss): beside each other, the
#: states' 36 columns left the conversation and the composer's text box no width at all.
TINY_SCREEN = 64
#: The tabs not shown at start: their views mount after the first frame (see
#: MainScreen.mount_view).
HIDDEN_TABS = ("card", "tasks", "traffic", "push")
ViewWidget = TypeVar("ViewWidget", bound=Widget)


def hidden_tab_view(name: str) -> Widget:
    """The view of hidden tab ``name``. Its module is imported here, when it mounts:
    the first frame does without those modules (and the classes' CSS)."""
    if name == "card":
        from ..widgets.card_view import CardView

        return CardView(id="card-view")
    if name == "tasks":
        from ..widgets.tasks_view import TasksView

        return TasksView(id="tasks-view")
    if name == "traffic":
        from ..widgets.traffic_view import TrafficView

        return TrafficView(id="traffic-view")
    if name == "push":
        from ..widgets.push_panel import PushPanel

        return PushPanel(id="push-panel")
    raise KeyError(name)


class MainScreen(InspectorAppNode, Screen[None]):
    """The agents sidebar and the views. At start the composer's text box has the keys
    (typing goes into a message, never into a panel's one-letter commands); the
    sidebar starts hidden on a terminal narrower than ``SIDEBAR_MIN_WIDTH``."""

    AUTO_FOCUS: ClassVar[str | None] = "#composer-text"
    #: How many ConnectionViews compose made (some mount after the first frame).
    _composed_views = 0
    _view_cache: list[ConnectionView] | None = None
    _resumed = False
    #: Hidden tabs whose view has not mounted yet.
    _unmounted: set[str] = set()

    def _view(self, view: ViewWidget) -> ViewWidget:
        self._composed_views += 1
        return view

    def compose(self) -> ComposeResult:
        # The size classes before there are children: set after mounting, each would
        # restyle every widget of the screen once more before the first frame.
        size = self.app.size
        self.set_class(size.height < SHORT_SCREEN, "-short")
        self.set_class(size.width < NARROW_SCREEN, "-narrow")
        self.set_class(size.width < TINY_SCREEN, "-tiny")
        replay = getattr(self.app, "replay_controller", None)
        if replay is not None:  # no composer: the conversation takes the keys
            # Textual reads AUTO_FOCUS on the instance: this one's depends on the app.
            self.AUTO_FOCUS = "#conversation"  # type: ignore[misc]
        view = self._view
        yield view(ConnectionBar(id="connection-bar"))
        with Horizontal(id="body"):
            yield view(AgentsPanel(id="agents"))
            # The tabs not shown at start are empty until the first frame is on screen
            # (mount_view): each view catches up from the app in its on_mount.
            self._unmounted = set(HIDDEN_TABS)
            self._composed_views += len(HIDDEN_TABS)
            with TabbedContent(id="views", initial="task"):
                yield TabPane("F2 Card", id="card")
                with TabPane("F3 Task", id="task"):
                    with Horizontal(id="task-split"):
                        with Vertical(id="task-left"):
                            yield view(Conversation(id="conversation"))
                            if replay is None:  # a recording cannot send
                                yield view(Composer(id="composer"))
                        with Vertical(id="task-right"):
                            yield view(StateDiagram(id="state-diagram"))
                            yield view(ArtifactsView(id="artifacts"))
                        yield view(TaskBeside(id="task-beside"))
                yield TabPane("F4 Tasks", id="tasks")
                yield TabPane("F5 Traffic", id="traffic")
                yield TabPane("F6 Push", id="push")
        if replay is not None:  # a2a-inspect replay: the timeline (see ui/replay.py)
            from ..widgets.replay_bar import ReplayBar

            yield view(ReplayBar(replay, id="replay-bar"))
        # The view keys are on the tabs themselves: the footer keeps the focused pane's keys.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        if self.app.size.width < SIDEBAR_MIN_WIDTH:
            self.query_one("#agents").display = False
        self._fit(self.app.size.height)
        self.set_class(self.app.size.width < NARROW_SCREEN, "-narrow")
        self.set_class(self.app.size.width < TINY_SCREEN, "-tiny")
        # Only at start: later, a moment with no focus (a view key between two views)
        # must not hand the keys back to the composer when the screen resumes.
        self.call_after_refresh(self._auto_focus_done)
        app: Any = self.app
        app.call_after_first_frame(self._mount_hidden_views)
        repaint_where_toasts_leave(self)

    async def _mount_hidden_views(self) -> None:
        # Awaited: this runs among the screen's after-refresh callbacks, so the screen
        # takes its next message (a connection the app has just opened, say) with the
        # views mounted, as when they were composed with the rest.
        mounting = [self.mount_view(name) for name in HIDDEN_TABS]
        for waiting in mounting:
            if waiting is not None:
                await waiting

    def mount_view(self, name: str) -> AwaitMount | None:
        """Mount the view of hidden tab ``name`` unless it is there already: after the
        first frame, or sooner when the tab is asked for (a view key, a click on the tab).
        In the DOM at once (a query finds it); it catches up from the app as it mounts."""
        if name not in self._unmounted:
            return None
        self._unmounted.discard(name)
        self._view_cache = None
        return self.query_one(f"#{name}", TabPane).mount(hidden_tab_view(name))

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id:
            self.mount_view(event.pane.id)

    def on_screen_resume(self, event: Any) -> None:
        # Runs before Screen's own handler. On the first resume the screen's widgets
        # were styled as they mounted, a moment ago: Textual's restyle of the whole
        # screen here would do it all again before the first frame. Later resumes (back
        # from a modal, after a theme change) restyle as usual.
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    #: set_focus is running (see refresh).
    _moving_focus = False

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None:
        self._moving_focus = True
        try:
            super().set_focus(widget, scroll_visible, from_app_focus)
        finally:
            self._moving_focus = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        # Textual's Screen repaints all of itself when the widget with the focus changes
        # (its focused reactive): a full frame, every widget's lines cut and joined again
        # (~10-15 ms of CPU), once per Tab and twice per view key. What the focus changes
        # repaints itself: the widgets it leaves and reaches restyle (:focus,
        # :focus-within), and the footer follows the keys.
        if self._moving_focus and not (regions or layout or recompose):
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _auto_focus_done(self) -> None:
        self.AUTO_FOCUS = None  # type: ignore[misc]  # see compose

    def on_resize(self, event: Any) -> None:
        # The size classes whatever the layout: under a modal, the modal's own Resize may
        # have laid this screen out at the new size before this one arrives.
        self._fit(event.size.height)
        self.set_class(event.size.width < NARROW_SCREEN, "-narrow")
        self.set_class(event.size.width < TINY_SCREEN, "-tiny")
        if event.size == self.outer_size:
            # Laid out at this size already: Textual's own handler would lay the whole
            # screen out again and paint it whole. At start that came twice after the
            # first frame (the screen's own first layout, and the terminal's size sent
            # again once the app is idle): two full frames that changed nothing.
            event.prevent_default()

    def _fit(self, height: int) -> None:
        """A short terminal (80x24): a smaller text box, no button row (the footer has
        the keys), and the state diagram as one line (it decides that itself)."""
        short = height < SHORT_SCREEN
        if short != self.has_class("-short"):
            self.set_class(short, "-short")
            for diagram in self.query(StateDiagram):
                diagram.refresh(layout=True)

    def _views(self) -> list[ConnectionView]:
        # Every frame fans out to these; walking the whole DOM each time cost ~3 ms.
        # The views are composed once, so the list is kept once they are all mounted.
        if self._view_cache is not None:
            views = self._view_cache
            if any(leaving(v) for v in views):
                # Removed (the app quitting as the hidden tabs' views mount): a view on
                # its way out may not have set itself up, and shows nothing any more.
                views = self._view_cache = [v for v in views if not leaving(v)]
            return views
        beside = self.query_one(TaskBeside)
        # The views inside the split's second task follow that task, not the selection:
        # TaskBeside feeds them itself.
        # A hidden tab's view is in the DOM from mount_view on, but takes messages only
        # once mounted: it catches up from the app in its on_mount.
        views = [
            w
            for w in self.query("*")
            if isinstance(w, ConnectionView) and w.is_mounted and beside not in w.ancestors and not leaving(w)
        ]
        if len(views) == self._composed_views:  # the hidden tabs' too
            self._view_cache = views
        return views

    @on(ConnectionChanged)
    def _connection_changed(self, message: ConnectionChanged) -> None:
        active = self.app.active
        for view in self._views():
            view.show_connection(active)

    @on(SessionAdvanced)
    def _session_advanced(self, message: SessionAdvanced) -> None:
        if message.connection is not self.app.active:
            # Other connections only affect the bar, the agents list, the tasks list and
            # a task shown beside the selected one.
            from ..widgets.tasks_view import TasksView

            for view in [*self.query(AgentsPanel), *self.query(TasksView), *self.query(TaskBeside)]:
                if view.is_mounted:
                    view.session_advanced(message.connection, message.events, message.changed)
            return
        for view in self._views():
            view.session_advanced(message.connection, message.events, message.changed)

    @on(TaskSelected)
    def _task_selected(self, message: TaskSelected) -> None:
        for view in self._views():
            view.show_task(message.connection, message.task_id)

    @on(ComposeText)
    def _compose_text(self, message: ComposeText) -> None:
        # Any view may post this (a card's skill example...); the composer takes it
        # (and stops it, so it does not bubble back here).
        for composer in self.query(Composer):
            composer.post_message(ComposeText(message.text))

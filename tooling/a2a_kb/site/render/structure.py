"""The Structure page: the a2a_kb package drawn as floors of rooms (see
`a2a_kb.site.package_graph`), with the imports that go against the floors, the cycles,
and the modules over 400 lines with the reason each gives."""

from __future__ import annotations

from .. import paths
from ..package_graph import LONG, draw
from ..templating import render


def page() -> str:
    drawing = draw()
    floors = [(n, rooms, alone) for n, (rooms, alone) in enumerate(drawing.floors, 1)]
    return render("site/structure.md.j2", drawing=drawing, floors=floors, long_lines=LONG,
                  unexplained=sum(1 for _, _, why in drawing.long if not why),
                  paths=paths)

"""The topic map: chunks on a 2-D projection, coloured by topic, as a self-contained SVG.

No JavaScript, no network, no plotting library: the file opens anywhere. Sampled chunks are drawn
with a dark outline; the legend lists each topic's label, size and number of kept questions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from markupsafe import escape

from assay.generate.topics import TopicModel

#: A categorical palette (Tableau 20 order); noise is grey.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
    "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
    "#dbdb8d", "#9edae5", "#393b79", "#637939",
)
NOISE_COLOUR = "#9e9e9e"


def topic_colour(topic_id: int) -> str:
    """The colour of a topic (noise grey).

    Example:
        >>> topic_colour(0), topic_colour(-1)
        ('#1f77b4', '#9e9e9e')
    """
    return NOISE_COLOUR if topic_id < 0 else PALETTE[topic_id % len(PALETTE)]


def topic_map_svg(
    model: TopicModel,
    *,
    sampled: Sequence[int] = (),
    questions: Mapping[int, int] | None = None,
    chunk_ids: Sequence[str] | None = None,
    title: str = "Topic map",
    size: int = 560,
) -> str:
    """An SVG scatter plot of ``model.coords`` coloured by topic, with a legend.

    Args:
        model: The topic model (its ``coords`` are the 2-D projection).
        sampled: Indices of chunks that questions were drawn from (outlined).
        questions: Kept questions per topic id (shown in the legend).
        chunk_ids: Chunk ids, shown as tooltips.
        title: Title drawn above the plot.
        size: Width and height of the plot area in pixels.

    Example:
        >>> from assay.generate.topics import Topic
        >>> topics = [Topic(0, "fee", [], 1), Topic(1, "<loan>", [], 1)]
        >>> model = TopicModel(np.array([0, 1]), topics, np.array([[0.0, 0.0], [1.0, 1.0]]))
        >>> svg = topic_map_svg(model, sampled=[1])
        >>> svg.startswith("<svg") and "&lt;loan&gt;" in svg and svg.count("<circle") == 4
        True
    """
    coords = np.asarray(model.coords, dtype=np.float64)
    pad, legend_row = 24, 18
    legend_height = legend_row * (len(model.topics) + 1)
    width, height = size + 2 * pad, size + 2 * pad + 28 + legend_height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{pad}" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
        f'<rect x="{pad}" y="{pad + 4}" width="{size}" height="{size}" fill="none" '
        'stroke="#cccccc"/>',
    ]
    if len(coords):
        low, high = coords.min(axis=0), coords.max(axis=0)
        span = np.where(high - low > 0, high - low, 1.0)
        scaled = (coords - low) / span
        marked = set(int(i) for i in sampled)
        for index, ((x, y), topic_id) in enumerate(zip(scaled, model.labels.tolist(),
                                                       strict=True)):
            cx = pad + 8 + x * (size - 16)
            cy = pad + 4 + 8 + (1 - y) * (size - 16)
            stroke = ' stroke="#000000" stroke-width="1.5"' if index in marked else ""
            tip = escape(chunk_ids[index]) if chunk_ids is not None else str(index)
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{topic_colour(topic_id)}" '
                f'fill-opacity="0.8"{stroke}><title>{tip} (topic {topic_id})</title></circle>'
            )
    top = pad + size + 24
    parts.append(f'<text x="{pad}" y="{top}" fill="#555555">outlined: sampled chunks</text>')
    for row, topic in enumerate(model.topics, start=1):
        y = top + row * legend_row
        kept = "" if questions is None else f", {questions.get(topic.id, 0)} questions"
        parts.append(f'<circle cx="{pad + 5}" cy="{y - 4}" r="5" fill="{topic_colour(topic.id)}"/>')
        parts.append(f'<text x="{pad + 16}" y="{y}">{topic.id}: {escape(topic.label)} '
                     f"({topic.size} chunks{kept})</text>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

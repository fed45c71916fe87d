"""A student of a model: its weights, run for fewer passes (`albert.commands.distill` trains one:
`python -m albert.finetune --teacher DIR --student-passes K`).

Without sharing the student keeps evenly spaced layers (DistilBERT's every other layer), so it is smaller; with `all`
sharing the one layer simply runs fewer times, so the file keeps its size and only the compute shrinks. Sequence
classification only.
"""

from __future__ import annotations

from albert.core.config import ConfigError
from albert.core.heads import AlbertForSequenceClassification


def kept_layers(layers: int, passes: int) -> list[int]:
    """Evenly spaced layers of a `layers`-layer model for a `passes`-pass student (6 → 3: 0, 2, 4)."""
    return [i * layers // passes for i in range(passes)]


def make_student(model: AlbertForSequenceClassification, passes: int) -> AlbertForSequenceClassification:
    """A `passes`-pass copy of `model` (its weights, fewer passes); see the module docstring."""
    config = model.config
    if passes >= config.num_hidden_layers:
        raise ConfigError(f"a student needs fewer passes than the teacher's {config.num_hidden_layers}, got {passes}.")
    if config.sharing == "all" and config.num_hidden_groups == 1:
        student_config, keep = config.replace(num_hidden_layers=passes), [0]
    elif config.sharing == "none":
        student_config = config.replace(num_hidden_layers=passes, num_hidden_groups=passes)
        keep = kept_layers(config.num_hidden_layers, passes)
    else:
        raise ConfigError(
            f"students are made from models with sharing 'none' or 'all' in one group, not {config.sharing!r} "
            f"with {config.num_hidden_groups} groups."
        )
    student = AlbertForSequenceClassification(student_config)
    state = {}
    for key, value in model.state_dict().items():
        parts = key.split(".")
        if len(parts) > 2 and parts[1] in ("attention_blocks", "ffn_blocks"):
            index = int(parts[2])
            if index not in keep:
                continue
            parts[2] = str(keep.index(index))
        state[".".join(parts)] = value
    student.load_state_dict(state)
    return student

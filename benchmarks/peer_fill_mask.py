"""The textbook Gradio fill-mask demo, the peer that ALBERT Lab's masked words are measured against (issue 53):
`gr.Interface` over transformers' `pipeline("fill-mask")`, a `gr.Label` output and Gradio's default queue, on one of
our model folders. Nothing here is ALBERT Lab's: it is what a Gradio tutorial serves.

    python -m benchmarks.peer_fill_mask --model assets/models/albert-lab-e128-gpu --port 7861

Its endpoint is `/predict` (one text in, a label of the top guesses out).
"""

from __future__ import annotations

import argparse
import os


def build(model: str):  # noqa: ANN201 — a gr.Interface
    import gradio as gr
    from transformers import pipeline

    fill = pipeline("fill-mask", model=model, tokenizer=model)

    def predict(text: str) -> dict[str, float]:
        return {guess["token_str"]: guess["score"] for guess in fill(text)}

    return gr.Interface(predict, gr.Textbox(label="Text with [MASK]"), gr.Label(num_top_classes=5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a model folder in the transformers layout")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    build(args.model).launch(server_name="127.0.0.1", server_port=args.port)


if __name__ == "__main__":
    main()

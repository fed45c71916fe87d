"""Task heads on top of `AlbertModel`: pretraining (MLM + SOP/NSP), masked LM, and
sequence / token classification. Each returns a typed output dataclass."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

import torch
import torch.nn.functional as F
from torch import nn

from albert.core.config import IGNORE_INDEX, AlbertConfig
from albert.core.model import AlbertModel, AlbertModelOutput, AlbertPreTrainedModel, activation


@dataclass
class PreTrainingOutput:
    loss: torch.Tensor | None
    """MLM loss + sentence-pair loss, when labels were given."""
    mlm_logits: torch.Tensor | None
    """(B, T, V) without labels; with `mlm_labels`, (N, V) for the N labelled positions only
    (row-major order), which skips the V-wide projection of every unmasked token. None when the forward pass was
    asked for the sentence-pair head alone (`with_mlm_logits=False`)."""
    sop_logits: torch.Tensor | None
    """(B, 2): for SOP, 0 = in order, 1 = swapped; for NSP, 0 = next, 1 = random. None for a model
    pretrained with MLM only (`sentence_objective="none"`), which has no sentence-pair head."""
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None
    mlm_loss: torch.Tensor | None = None
    sop_loss: torch.Tensor | None = None


@dataclass
class MaskedLMOutput:
    loss: torch.Tensor | None
    logits: torch.Tensor
    """(B, T, V), or (N, V) at the labelled positions when labels were given."""
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


@dataclass
class ClassifierOutput:
    loss: torch.Tensor | None
    logits: torch.Tensor
    """(B, num_labels) for sequences, (B, T, num_labels) for tokens."""
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


O = TypeVar("O", MaskedLMOutput, ClassifierOutput)


class MaskedLMHead(nn.Module):
    """H → E → V; the E → V decoder is the transposed word-embedding matrix (tied)."""

    def __init__(self, config: AlbertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.embedding_size)
        self.activation = activation(config.hidden_act)
        self.norm = nn.LayerNorm(config.embedding_size, eps=config.layer_norm_eps)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, hidden: torch.Tensor, word_embeddings: torch.Tensor) -> torch.Tensor:
        x = self.norm(self.activation(self.dense(hidden)))  # (..., E)
        return F.linear(x, word_embeddings, self.bias)  # (..., V): tied to the (V, E) embeddings


def _masked_lm(
    model: AlbertPreTrainedModel, sequence: torch.Tensor, labels: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Logits and loss; with labels, only the labelled positions go through the decoder."""
    word_embeddings = model.albert.embeddings.word_embeddings.weight
    if labels is None:
        return model.mlm_head(sequence, word_embeddings), None
    selected = labels != IGNORE_INDEX  # (B, T)
    logits = model.mlm_head(sequence[selected], word_embeddings)  # (N, V)
    targets = labels[selected]
    if targets.numel() == 0:
        return logits, sequence.sum() * 0.0  # keeps the graph (and DDP) intact with no targets
    return logits, F.cross_entropy(logits.float(), targets)


def sentence_pair_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the examples that have a sentence-pair label (IGNORE_INDEX: none,
    e.g. a single-segment example); zero, with the graph kept, when no example in the batch has one."""
    loss_sum = F.cross_entropy(logits.float(), labels, ignore_index=IGNORE_INDEX, reduction="sum")
    return loss_sum / (labels != IGNORE_INDEX).sum().clamp(min=1)


def classification_loss(logits: torch.Tensor, labels: torch.Tensor, num_labels: int) -> torch.Tensor:
    """A classifier's loss: mean squared error for one label (regression), else cross-entropy over the labelled
    positions (IGNORE_INDEX: none), for a sequence's (B, num_labels) or every token's (B, T, num_labels) logits."""
    if num_labels == 1:  # regression
        return F.mse_loss(logits.squeeze(-1).float(), labels.float())
    return F.cross_entropy(logits.reshape(-1, num_labels).float(), labels.reshape(-1), ignore_index=IGNORE_INDEX)


class AlbertForPreTraining(AlbertPreTrainedModel):
    """Masked-LM head + sentence-pair (SOP or NSP) head, as ALBERT is pretrained; with
    `sentence_objective="none"` the masked-LM head alone (the paper's Table 5 "None" column)."""

    def __init__(self, config: AlbertConfig):
        super().__init__()
        self.config = config
        self.albert = AlbertModel(config, add_pooler=True)
        self.mlm_head = MaskedLMHead(config)
        self.has_sentence_head = config.sentence_objective != "none"
        if self.has_sentence_head:
            self.sentence_pair_dropout = nn.Dropout(config.classifier_dropout_prob)
            self.sentence_pair_head = nn.Linear(config.hidden_size, 2)
        self.init_weights()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        mlm_labels: torch.Tensor | None = None,
        sentence_order_label: torch.Tensor | None = None,
        output_hidden_states: bool = False,
        output_attentions: bool = False,
        with_mlm_logits: bool = True,
    ) -> PreTrainingOutput:
        """`with_mlm_logits=False` skips the masked-LM head (the V-wide projection of every token, most of a small
        model's pass): sentence-order scoring reads `sop_logits` only. It cannot be combined with `mlm_labels`."""
        if not with_mlm_logits and mlm_labels is not None:
            raise ValueError("mlm_labels need the masked-LM head: leave with_mlm_logits=True to compute their loss")
        out = self.albert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_hidden_states=output_hidden_states,
            output_attentions=output_attentions,
        )
        mlm_logits, mlm_loss = _masked_lm(self, out.last_hidden_state, mlm_labels) if with_mlm_logits else (None, None)
        sop_logits = sop_loss = None
        if self.has_sentence_head:
            sop_logits = self.sentence_pair_head(self.sentence_pair_dropout(out.pooler_output))  # (B, 2)
            if sentence_order_label is not None:
                sop_loss = sentence_pair_loss(sop_logits, sentence_order_label)
        losses = [loss for loss in (mlm_loss, sop_loss) if loss is not None]
        return PreTrainingOutput(
            loss=sum(losses) if losses else None,
            mlm_logits=mlm_logits,
            sop_logits=sop_logits,
            hidden_states=out.hidden_states,
            attentions=out.attentions,
            mlm_loss=mlm_loss,
            sop_loss=sop_loss,
        )


class _OneLabelHead(AlbertPreTrainedModel, ABC, Generic[O]):
    """The encoder (`self.albert`) under a head with one labels tensor (the masked LM, the classifiers), and the
    forward pass they share, written once: the encoder's pass, the head's logits and loss (`logits_and_loss`), both
    returned with the encoder's hidden states and attentions in the head's output class."""

    add_pooler: ClassVar[bool] = True
    """Whether the head reads the pooled [CLS] vector (the masked LM and the token classifier read every token)."""
    output_class: ClassVar[type]

    def __init__(self, config: AlbertConfig):
        super().__init__()
        self.config = config
        self.albert = AlbertModel(config, add_pooler=self.add_pooler)

    @abstractmethod
    def logits_and_loss(
        self, out: AlbertModelOutput, labels: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The head on the encoder's output: its logits, and its loss when labels are given."""

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        output_hidden_states: bool = False,
        output_attentions: bool = False,
    ) -> O:
        out = self.albert(
            input_ids,
            attention_mask,
            token_type_ids,
            output_hidden_states=output_hidden_states,
            output_attentions=output_attentions,
        )
        logits, loss = self.logits_and_loss(out, labels)
        return self.output_class(loss=loss, logits=logits, hidden_states=out.hidden_states, attentions=out.attentions)


class AlbertForMaskedLM(_OneLabelHead[MaskedLMOutput]):
    """Masked-LM head only (no pooler), for fill-in-the-blank."""

    add_pooler = False
    output_class = MaskedLMOutput

    def __init__(self, config: AlbertConfig):
        super().__init__(config)
        self.mlm_head = MaskedLMHead(config)
        self.init_weights()

    def logits_and_loss(
        self, out: AlbertModelOutput, labels: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        return _masked_lm(self, out.last_hidden_state, labels)


class _AlbertClassifier(_OneLabelHead[ClassifierOutput]):
    """Encoder → dropout → linear over the pooled [CLS] state, or over every token's state (no pooler)."""

    output_class = ClassifierOutput

    def __init__(self, config: AlbertConfig):
        super().__init__(config)
        self.dropout = nn.Dropout(config.classifier_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.init_weights()

    def logits_and_loss(
        self, out: AlbertModelOutput, labels: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        features = out.pooler_output if self.add_pooler else out.last_hidden_state  # (B, H) or (B, T, H)
        logits = self.classifier(self.dropout(features))  # (B, num_labels) or (B, T, num_labels)
        loss = classification_loss(logits, labels, self.config.num_labels) if labels is not None else None
        return logits, loss


class AlbertForSequenceClassification(_AlbertClassifier):
    """Pooled [CLS] → dropout → linear; `num_labels == 1` is regression (MSE)."""


class AlbertForTokenClassification(_AlbertClassifier):
    """Every token's hidden state → dropout → linear (no pooler), for tagging."""

    add_pooler = False

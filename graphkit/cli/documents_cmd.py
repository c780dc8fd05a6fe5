"""`graphkit search`, `graphkit index`, `graphkit soap`, `graphkit summary`: retrieval over stored
chunks and clinical documents built from the graph, every sentence cited."""

from __future__ import annotations

import typer
from rich.markup import escape

from graphkit.cli.common import console, open_store, print_json
from graphkit.cli.state_cmd import _date
from graphkit.errors import BadInputError


def search_cmd(
    patient: str = typer.Argument(..., help="Patient id."),
    question: str = typer.Argument(..., help="What to look for, in words."),
    encounter: str = typer.Option(None, "--encounter", help="Local: only this encounter's notes."),
    start: str = typer.Option(None, "--from", help="Local: notes on or after this date (YYYY-MM-DD)."),
    end: str = typer.Option(None, "--to", help="Local: notes on or before this date (YYYY-MM-DD)."),
    k: int = typer.Option(10, "-k", help="How many chunks."),
    with_global: bool = typer.Option(False, "--with-global", help="Fuse the local hits with the global ones."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Find the passages of a patient's notes that answer a question: the vector index, the full-text
    index and the events the question names, fused and reranked (MMR). Global over the whole record,
    or local to one encounter or a date window. Prints each hit with its citation id (the chunk), note,
    date and section, and its text (it quotes the record).

    Example: graphkit search demo-p001 "which chemotherapy was given"
    Example: graphkit search PATIENT "pain" --from 2024-01-01 --to 2024-03-31 --with-global
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.retrieve import Scope, search

    if encounter and (start or end):
        raise BadInputError("use --encounter or --from/--to, not both", fix="graphkit search --help")
    scope = Scope(encounter, _date(start), _date(end))
    embedder = TextEmbedder()
    with open_store() as store:
        hits = search(store, patient, question, embedder, scope, k=k, combine_global=with_global)
    embedder.save()
    if as_json:
        print_json([h.__dict__ for h in hits])
        return
    if not hits:
        console.print("No passage of this patient's notes matches the question (try other words, or a wider scope).")
        return
    for n, h in enumerate(hits, start=1):
        console.print(f"[bold]{n}. {escape('[' + h.id + ']')}[/] {(h.time or '')[:10]} {h.note_type or ''} / {h.section or ''} "
                      f"(score {h.score:.3f}; {', '.join(f'{s} #{r}' for s, r in h.ranks.items())})")
        console.print("   " + escape(" ".join(h.text.split())), soft_wrap=True)


def index_cmd(
    patient: list[str] = typer.Option(None, "--patient", help="Only these patients (repeatable)."),
):
    """Embed the note chunks that have no embedding yet (new or changed notes) into the Neo4j vector
    index used by `graphkit search`, `soap` and `summary` (they also do it on demand).

    Example: graphkit index
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.retrieve import ensure_embeddings

    embedder = TextEmbedder()
    with open_store() as store:
        n = ensure_embeddings(store, embedder, list(patient) if patient else None)
    embedder.save()
    console.print(f"{n} chunks embedded")


def soap_cmd(
    patient: str = typer.Argument(..., help="Patient id."),
    encounter: str = typer.Option(..., "--encounter", help="The encounter to write the note for."),
    llm: str = typer.Option(None, envvar="GRAPHKIT_LLM", help="ollama:MODEL | openai:MODEL@URL | none (default)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Write the SOAP note of one encounter from the graph: Subjective, Objective, Assessment and Plan
    from the encounter's note sentences (by section), the patient state and the guideline steps due at
    its date. Every sentence cites its source; stored as (:ClinicalDocument)-[:CITES]->(...). The text
    quotes the record.

    Example: graphkit soap demo-p001 --encounter demo-p001-e2
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.documents.job import soap_for_encounter
    from graphkit.llm import from_spec

    embedder = TextEmbedder()
    with open_store() as store:
        doc, _ = soap_for_encounter(store, patient, encounter, embedder, llm=from_spec(llm))
    embedder.save()
    if as_json:
        print_json(doc.__dict__)
        return
    console.print(escape(doc.text), soft_wrap=True)
    console.print(f"\n{doc.mode} ({doc.model}); {len(doc.citations)} citations; stored as {doc.id}"
                  + (f"; {len(doc.unsupported)} sentences unsupported by their citations" if doc.unsupported else "")
                  + (f"; LLM: {doc.note}" if doc.note else ""))


def summary_cmd(
    patient: str = typer.Argument(..., help="Patient id."),
    at: str = typer.Option(None, "--at", help="As of this date (YYYY-MM-DD)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Aspect summaries of a patient (oncologic history, current disease status, biomarkers, treatments
    so far, pending items), each sentence attributed to the note sentences it was read from; a citation
    that does not support its sentence is dropped and the sentence flagged unsupported.

    Example: graphkit summary demo-p001
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.documents.job import summary_for_patient

    embedder = TextEmbedder()
    with open_store() as store:
        doc, claims = summary_for_patient(store, patient, embedder, _date(at))
    embedder.save()
    if as_json:
        print_json({**doc.__dict__, "claims": [c.__dict__ for c in claims]})
        return
    console.print(escape(doc.text), soft_wrap=True)
    rejected = sum(len(c.rejected) for c in claims)
    console.print(f"\n{len(doc.citations)} citations kept, {rejected} rejected by the attribution check; "
                  f"{len(doc.unsupported)} claims unsupported; stored as {doc.id}")

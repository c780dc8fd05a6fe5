"""`graphkit recommend`: guideline-grounded summary and recommendation per patient, citations checked."""

from __future__ import annotations

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from graphkit.cli.common import console, err_console, open_store, print_json
from graphkit.errors import BadInputError


def recommend(
    patient: str = typer.Argument(None, help="Patient id (or --all)."),
    all_patients: bool = typer.Option(False, "--all", help="Every aligned patient (a batch job)."),
    llm: str = typer.Option(None, envvar="GRAPHKIT_LLM",
                            help="ollama:MODEL | openai:MODEL@URL | none (default: no-LLM mode)."),
    budget: int = typer.Option(2048, help="Prompt budget in tokens of the target tokenizer."),
    question: str = typer.Option(None, help="A question to focus the note-text selection (and CPTF) on."),
    cptf: str = typer.Option(None, "--cptf", metavar="MODEL",
                             help="Filter the selected note sentences with CPTF: gemma (Gemma 3 270M, needs "
                                  "graphkit[cptf-gemma]), minilm (fast), or a local model folder. Twice the text "
                                  "is selected, then filtered back into the budget; dates, doses, negations, "
                                  "lab values, linked mentions and citation ids are always kept."),
    cptf_ratio: float = typer.Option(0.5, help="With --cptf: the share of the selected text's tokens kept."),
    temperature: float = typer.Option(0.7, help="LLM temperature (ConTextual used 0.7)."),
    max_tokens: int = typer.Option(400, help="LLM answer length limit."),
    show_text: bool = typer.Option(False, "--show-text",
                                   help="Also print the summary and recommendation (they quote the patient's "
                                        "record: PHI). Without it only ids, status and citations are printed."),
    at: str = typer.Option(None, "--at", help="Reason about the record as of this date (YYYY-MM-DD; default today)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Write a patient's clinical summary and guideline-grounded recommendation. Every [E3]-style
    citation is checked against the graph; unknown or missing citations are reported, never kept
    silently. Stored as (:Recommendation)-[:CITES]->(evidence) beside earlier ones. Without an LLM
    (the default) the text is built deterministically from the timeline, the aligned path and the
    conformance report; with one, a malformed or uncited answer falls back to that text (status
    partial). The text is printed only with --show-text (it quotes the record); it is always stored.

    Example: graphkit recommend fhir-7a1d5954-c722-4266-aa13-952e2beef7c9 --show-text
    Example: GRAPHKIT_LLM=ollama:llama3.1 graphkit recommend --all --json
    Example: graphkit recommend PATIENT --cptf minilm --question "is adjuvant therapy due?"
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.llm import from_spec
    from graphkit.recommend import recommend_patient

    if bool(patient) == bool(all_patients):
        raise BadInputError("name one patient, or use --all", fix="graphkit recommend --help")
    from graphkit.cli.state_cmd import _date

    when = _date(at)
    chat = from_spec(llm, temperature=temperature, max_tokens=max_tokens)
    filt = None
    if cptf:
        from graphkit.context.cptf import CPTF, CPTFConfig

        filt = CPTF(CPTFConfig(model=cptf, ratio=cptf_ratio)).load()  # a missing package fails before any patient
    embedder = TextEmbedder()
    results = []
    with open_store() as store:
        ids = [patient] if patient else [r["patient"] for r in store.read("context.aligned_patients")]
        with Progress(TextColumn("recommending"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err_console, transient=True, disable=as_json or len(ids) == 1) as bar:
            task = bar.add_task("rec", total=len(ids))
            for pid in ids:
                rec = recommend_patient(store, pid, embedder, llm=chat, budget=budget, question=question, cptf=filt,
                                        at=when)
                results.append(rec)
                bar.advance(task)
    embedder.save()
    if as_json:
        out = [{"id": r.id, "patient": r.patient, "status": r.status, "mode": r.mode, "model": r.model,
                "run": r.run, "citations": r.citations, "unknown_citations": r.unknown,
                "uncited_sentences": len(r.uncited), "note": r.note, "prompt_tokens": r.prompt_tokens,
                "pack_ms": round(r.pack_ms, 1),
                "next_steps": [{"guideline": a.guideline, "version": a.version, "step": i.step, "status": i.status}
                               for a in r.reasoning.applicable for i in a.next_steps] if r.reasoning else [],
                **({"summary": r.summary, "recommendation": r.text} if show_text else {})} for r in results]
        print_json(out[0] if patient else out)
        return
    for r in results:
        console.print(f"[bold]{r.patient}[/] — {r.status}, {r.mode} ({r.model}); stored as {r.id}")
        for a in (r.reasoning.applicable if r.reasoning else []):
            steps = ", ".join(f"{i.step} ({i.status})" for i in a.next_steps) or "nothing due"
            console.print(f"  {a.guideline} {a.version}: {steps}")
        if show_text:  # the user asked to see text that quotes the record
            console.print(f"[bold]Summary.[/] {r.summary}", soft_wrap=True)
            console.print(f"[bold]Recommendation.[/] {r.text}", soft_wrap=True)
        if patient:
            console.print("[bold]Citations[/] (checked against the graph):")
            for c in r.citations:
                console.print(f"  [{c['alias']}] {c['label']} {c['id']}")
        if r.unknown:
            console.print(f"[red]unknown citations:[/] {', '.join(r.unknown)}")
        if r.uncited:
            console.print(f"[yellow]{len(r.uncited)} sentences cite nothing[/]")
        if r.note:
            console.print(f"[yellow]LLM:[/] {r.note}")
    if not show_text:
        console.print("Text not shown (it quotes the record): add --show-text, or open the "
                      "(:Recommendation) in Neo4j Browser.")

"""`graphkit eval ...`: measurements a user can rerun on their own copy of the public datasets."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from graphkit.cli.common import console, err_console, print_json

app = typer.Typer(help="Evaluate graphkit's components on public datasets.", no_args_is_help=True)


@app.command("context")
def context(
    data: Path = typer.Option(Path("../shared/data"), help="Folder with aci-bench/ and mts-dialog/ (CSV)."),
    budgets: str = typer.Option("128,256,512,1024,2048", help="Token budgets, comma-separated."),
    cptf: bool = typer.Option(True, "--cptf/--no-cptf", help="Include CPTF in fast mode (MiniLM attention)."),
    gemma: int = typer.Option(0, help="Also run CPTF with Gemma 3 270M (the default CPTF model; slower) on "
                                      "this many ACI-Bench dialogues."),
    ablations: bool = typer.Option(False, "--ablations", help="Also run CPTF in the other importance mode "
                                                               "(received attention instead of the task's)."),
    mts_calibration: int = typer.Option(300, help="MTS-Dialog train dialogues used to calibrate the router."),
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
):
    """Extractive coverage of budget-packed dialogue text against reference notes (MTS-Dialog: one
    section; ACI-Bench: the full note): ROUGE-1/2/L recall and F1 for Lead, random, MMR, RCD, the
    budget-aware router (calibrated on the train splits) and CPTF, at each budget.

    Example: graphkit eval context --data ../shared/data --no-cptf
    Example: graphkit eval context --budgets 128,256,512 --gemma 20 --ablations
    """
    from graphkit.align.embed import TextEmbedder
    from graphkit.context.evaluate import evaluate_context

    fast = slow = None
    if cptf or gemma:
        from graphkit.context.cptf import CPTF, CPTFConfig

        fast = CPTF(CPTFConfig(model="minilm")) if cptf else None
        slow = CPTF(CPTFConfig(model="gemma")) if gemma else None
    embedder = TextEmbedder()
    sizes = tuple(int(b) for b in budgets.split(","))
    result = evaluate_context(data, embedder, budgets=sizes, mts_calibration=mts_calibration, cptf_fast=fast,
                              cptf_gemma=slow, gemma_docs=gemma, ablations=ablations,
                              log=lambda m: err_console.print(m, highlight=False) if not as_json else None)
    embedder.save()
    if as_json:
        print_json(result)
        return
    for name, table in result["tables"].items():
        t = Table(title=f"{name}: ROUGE-1 F1 / ROUGE-2 F1 / ROUGE-L F1 (recall in brackets: ROUGE-1)")
        t.add_column("method")
        for b in sizes:
            t.add_column(str(b), justify="right")
        for m, row in table.items():
            t.add_row(m, *(f"{row[str(b)]['rouge1_f1']:.1f}/{row[str(b)]['rouge2_f1']:.1f}/{row[str(b)]['rougeL_f1']:.1f} "
                           f"({row[str(b)]['rouge1_recall']:.0f})" for b in sizes))
        console.print(t)
    console.print(f"router gap to oracle (ROUGE-1 points): {result['router_gap_to_oracle']}; "
                  f"protected spans kept at 50%: {result['protected_spans_kept']}; "
                  f"CPTF tokens/s: fast {result['cptf_fast_tokens_per_s']}, Gemma {result['cptf_gemma_tokens_per_s']}")

"""Which recorded care is cancer-directed treatment (for the patient state's treatment list).

Drugs by class: antineoplastic and endocrine therapy (ATC L01, L02) and named regimens. Procedures by
SNOMED CT concept: cancer surgery, radiotherapy and systemic-therapy procedures (the codes graphkit's
procedure table and the guideline specs use; SNOMED's own hierarchy is not shipped). Everything else
(examinations, reconciliations, supportive drugs) stays a fact of the record, not a treatment.
"""

from __future__ import annotations

CANCER_DRUG_PREFIXES = ("ATC|L01", "ATC|L02", "regimen|")
#: the flag ingestion gives a treatment a note says was never begun ("Durvalumab has NOT been started")
NEVER_STARTED = "never-started"
#: Care the record judges the patient not a candidate for ("not a candidate for hepatic resection"): the
#: option is closed, not merely not yet taken
RULED_OUT = "ruled-out"

#: SNOMED CT procedures that treat a cancer: code → short name (what it is, not a synonym list).
CANCER_PROCEDURES = {
    # radiotherapy
    "108290001": "radiotherapy", "33195004": "external beam radiotherapy", "1287742003": "radiotherapy",
    "385798007": "radiation therapy care", "152198000": "brachytherapy", "447759004": "breast brachytherapy",
    "113120007": "interstitial brachytherapy", "384692006": "intracavitary brachytherapy",
    "703423002": "chemoradiation",
    # systemic therapy as a procedure
    "367336001": "chemotherapy", "76334006": "immunotherapy", "169413002": "hormone therapy",
    # breast
    "392021009": "lumpectomy", "392023007": "excision of breast lesion", "69031006": "mastectomy",
    "396487001": "sentinel lymph node biopsy", "443497002": "sentinel lymph node excision",
    "234262008": "axillary lymph node excision",
    # lung
    "173171007": "lobectomy", "49795001": "pneumonectomy", "173172000": "segmentectomy",
    # colorectal and liver
    "43075005": "partial colectomy", "4558008": "anterior resection of rectum",
    "265414003": "abdominoperineal resection", "71273005": "partial hepatectomy", "879916008": "radiofrequency ablation",
}


#: Procedures that name a class of systemic therapy, not a drug ("chemo", "immunotherapy").
SYSTEMIC_CLASSES = frozenset({"367336001", "76334006", "169413002"})
#: The ATC groups each class names: a drug of the group given is that class given.
CLASS_DRUGS = {"367336001": ("ATC|L01A", "ATC|L01B", "ATC|L01C", "ATC|L01D", "ATC|L01X", "regimen|"),
               "76334006": ("ATC|L01FF",), "169413002": ("ATC|L02",)}


def names_class_of(class_codes: tuple[str, ...], drug_keys: tuple[str, ...]) -> bool:
    """Is a drug with these codes/ancestors one of the classes ``class_codes`` name? ("checkpoint
    inhibitor" and pembrolizumab.) O(codes)."""
    prefixes = tuple(p for c in class_codes for p in CLASS_DRUGS.get(c.split("|", 1)[1], ()))
    return bool(prefixes) and any(k.startswith(prefixes) for k in drug_keys)


def is_systemic_class(codes: tuple[str, ...]) -> bool:
    """Is this care only a systemic-therapy class ("wk 4 chemo held"), no drug of its own? O(codes)."""
    return bool(codes) and all(c.startswith("SNOMED-CT|") and c.split("|", 1)[1] in SYSTEMIC_CLASSES for c in codes)


def is_cancer_treatment(kind: str, codes: tuple[str, ...], ancestors: tuple[str, ...] = ()) -> bool:
    """A medication of an antineoplastic/endocrine class or regimen, or a cancer-treating procedure."""
    keys = tuple(codes) + tuple(ancestors)
    if kind == "Medication":
        return any(k.startswith(CANCER_DRUG_PREFIXES) for k in keys)
    return any(k.startswith("SNOMED-CT|") and k.split("|", 1)[1] in CANCER_PROCEDURES for k in keys)

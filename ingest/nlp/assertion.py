"""Assertion of a mention: present, negated, possible, historical, family, or planned.

medspaCy's ConText decides from cue words in the sentence; graphkit adds the cues clinical notes use that
its stock rules lack, a ``PLANNED`` category (a treatment or test recommended, ordered or scheduled
and not yet given must never count as done), and three rules of the annotation guideline
(``bench/data/assertion/ANNOTATION_GUIDELINE.md``):

* "history of X" / a past-medical-history section makes X historical only when X is an acute or episodic
  condition (an injury, an infarct, a pneumonia: ICD-10-CM chapters and categories below); a chronic
  disease stays present (R7);
* a biomarker reported negative is a *value*, not a negation: only "not tested / not sent" negates it;
* a test whose result is negative ("urine pregnancy test was negative") was done: present (R11).
"""

from __future__ import annotations

import re

from ingest.link.sources import Concept
from ingest.nlp import when
from ingest.nlp.oncology import DASH_NEW_SUBJECT

SECTION_ASSERTION = {"Family History": "family", "Past Surgical History": "historical", "Comparison": "historical",
                     # "DDx: 1) primary lung ca 2) Xpert-negative PTB 3) lung abscess": diagnoses still considered
                     "Differential Diagnosis": "possible"}
#: Sections whose treatments and tests are plans unless a cue says they were given or are ongoing.
PLAN_SECTIONS = {"Plan", "Assessment and Plan"}
#: Sections that weigh choices: their treatments and tests are options unless a cue says otherwise.
OPTION_SECTIONS = {"Discussion", "Options"}
# a medical-history list names past operations and past episodes; its chronic diseases, the drugs taken for
# them and their values go on ("PMH: DM2 (A1c 7.2 on metformin)"). A hospital course is this admission:
# present (assertion guideline R9), not history
HISTORY_SECTIONS = {"Past Medical History"}

# ICD-10-CM ranges of acute or episodic conditions: a past episode is over (guideline R7)
_EPISODIC = re.compile(r"^(?:S|T|O|I2[12]|I26|I6[0-4]|I82|G45|J0|J1[0-8]|J2[0-2]|N39\.0|N2[0-3]|K3[5-7]|K8[01]|"
                       r"A0|A4[01]|R5[56]|B0[0-9]|N10|L0[23])")
_RESULT_WORDS = r"(?:negative|normal|unremarkable)"  # a test's result, not a denial that it was done
_RESULT_CUES = re.compile(rf"^(?:was |were |is |are |came back )?{_RESULT_WORDS}$|^:\s*no$", re.I)
_NOT_TESTED = re.compile(r"\bnot\s+(?:tested|performed|sent|done|assessed|obtained|available|evaluated|requested|ordered)\b|"
                         r"\bno\s+(?:testing|test)\b", re.I)
_HISTORY_WORDS = re.compile(r"^(?:history|hx|hist|ho|h/o|past history|past medical history|history of)$", re.I)
PLANNED_KINDS = {"Medication", "Procedure", "Test"}
_DOUBT = {"unlikely", "is unlikely", "less likely", "doubtful", "not favored"}
_WEAK_HISTORY = {"after", "following", "post", "since completing"}

#: Counts of a schedule ("in 3 months", "every six weeks") as words, so the cue is a phrase, not a token pattern
_COUNTS = [str(n) for n in range(1, 25)] + ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                            "ten", "eleven", "twelve", "a", "an"]

#: Relatives a clinician names after a disease ("breast cancer in mother", "CRC in 2 brothers").
_RELATIVES = ("mother", "father", "mom", "mum", "dad", "sister", "sisters", "brother", "brothers", "sibling", "siblings",
              "son", "sons", "daughter", "daughters", "aunt", "aunts", "uncle", "uncles", "cousin", "cousins",
              "grandmother", "grandfather", "grandparent", "grandparents", "niece", "nephew", "mgm", "pgm",
              "mgf", "pgf")


def _answer_or_bullet(target, modifier, span_between) -> bool:
    """"Mucositis - none": the answer negates the finding before it; "- Nil fevers" opens a bullet and
    negates what follows it (only at the line's start)."""
    if target.start < modifier.start:
        return True
    doc = modifier.doc
    return modifier.start == 0 or "\n" in doc[modifier.start - 1].text_with_ws


# a habit "never" qualifies as one word ("never-smoker", "never smoked", "never drinker")
_HABITS = {"smoker", "smokers", "smoked", "smoking", "smokes", "drinker", "drank", "drinking", "user", "users", "used"}


# a habit given up, named by one term ("ex-smoker", "former drinker"): the ConText cue is inside the term
_GIVEN_UP = re.compile(r"(?:ex|former)[-\s]+(?:\w+[-\s]+)?(?:smoker|drinker|user)s?$", re.I)


def _never_reach(target, modifier, span_between) -> bool:
    """"63F never smoker, stage IVB": not past a comma; "a 54 yo never-smoker who developed a dry cough":
    a habit's "never" is the habit's only (the cough is hers)."""
    if span_between is not None and re.search(r"[,;]", span_between.text):
        return False
    doc = modifier.doc
    following = [t.lower_ for t in doc[modifier.end:modifier.end + 2] if t.text != "-"]
    return not (following and following[0] in _HABITS and target.start > modifier.end + 2)


#: medspaCy rules graphkit drops or replaces (below): the bare "secondary" ends a negation ("no secondary
#: infection" would deny nothing; "secondary to" stays)
_REPLACED_DEFAULTS = (": no", ": none", "decline", "declining", "secondary")


def _limited(rule, check):
    """The rule with its clause limits (:func:`with_clause_limit`) and one check more."""
    rule = with_clause_limit(rule)
    rule.on_modifies = _both(check, rule.on_modifies)
    return rule


def _closes_clause(modifier) -> bool:
    """Does the cue end its sentence, line or clause (nothing, a punctuation mark or a line break after it)?"""
    doc = modifier.doc
    return modifier.end >= len(doc) or doc[modifier.end].is_punct or "\n" in doc[modifier.end - 1].text_with_ws


def _as_answer(target, modifier, span_between) -> bool:
    """": no" negates what follows it, and what comes before it only where it closes its line or clause:
    the answer to the finding."""
    return modifier.start <= target.start or _closes_clause(modifier)


def _closing_answer(target, modifier, span_between) -> bool:
    """"Tobacco: never.": an answer that closes its line or clause."""
    return _closes_clause(modifier)


def _refusal(target, modifier, span_between) -> bool:
    """"declining chemotherapy", "pt decline adjuvant RT": a refusal; "decline in eGFR", "decline on AI",
    "declining CEA" (a test right after it): a fall."""
    doc = modifier.doc
    nxt = doc[modifier.end].lower_ if modifier.end < len(doc) else ""
    if nxt in ("in", "on", "of", "from", "to", "with", "since", "over", "after"):
        return False
    return not (target.label_ == "Test" and target.start == modifier.end)


def _closing_instruction(target, modifier, span_between) -> bool:
    """"Calcium + vitamin D3 - HOLD till review": the instruction closes the item (the word after it ends it
    or says until when) and denies the drugs before it; "... (durvalumab) - hold durvalumab" holds the drug
    right after it, like the plain "hold"."""
    doc = modifier.doc
    closing = _closes_clause(modifier) or doc[modifier.end].lower_ in (
        "till", "until", "pending", "for", "while", "during", "now", "today")
    return closing if target.start < modifier.start else not closing and target.start - modifier.end <= 2


_PLACING = ["inserted", "placed", "sited", "put", "left", "applied", "to", "in", "into", "at", "the", "cavity", "bed",
            "tumour", "tumor", "site", "lesion", "situ"]


def _adjacent_answer(target, modifier, span_between) -> bool:
    """"vomiting none.": the word right after the finding, closing its clause."""
    return target.end == modifier.start and _closes_clause(modifier)


def default_context_rules(context):
    """medspaCy's English rules, except ": no" / ": none" as BACKWARD-only cues: after "MRI pelvis: no
    residual tumor" they would negate the test and hide the forward "no" from the tumor. graphkit adds
    them back as bidirectional (a test with a negative result stays present: rule R11), and replaces the
    others of :data:`_REPLACED_DEFAULTS`."""
    from medspacy.context import ConTextRule

    rules = [r for r in ConTextRule.from_json(context.DEFAULT_RULES_FILEPATH) if r.literal not in _REPLACED_DEFAULTS]
    rules = [x for r in rules for x in as_phrases(r, context.nlp)]
    for r in rules:
        if r.literal == "free" and r.direction == "BACKWARD":
            r.max_scope = 3  # "bronchial margin free": the margin is free, not the carcinoma before it
        if r.literal in ("prophylaxis", "ppx"):
            # "DVT prophylaxis" denies the disease prevented, never the drug given for it ("Heparin 5000 U SC
            # q8h for VTE prophylaxis"); medspaCy compares labels upper-cased
            r.allowed_types = {"PROBLEM"}
    # "free T4", "free PSA", "free light chains": an analyte's name, no negation ("TSH 12.4, free T4 0.6")
    rules.append(ConTextRule("free <analyte>", "PSEUDO", direction="PSEUDO", pattern=[
        {"LOWER": "free"}, {"IS_PUNCT": False, "IS_SPACE": False,
                            "LOWER": {"NOT_IN": ["of", "from", "margin", "margins", "and", "or", "at", "in", "with",
                                                 "since", "for", "x", "by", "on", "to", "survival", "interval"]}}]))
    # forward as far as a list of findings goes ("ROS: no fever, chills, or night sweats"); ": no" negates
    # what comes before it only as an answer ("Fevers: no."; "Tamoxifen + apixaban: no major interaction"
    # denies the interaction, not the drugs)
    rules += [ConTextRule(": none", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=10)]
    rules += [_limited(ConTextRule(": no", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=10), _as_answer)]
    # "Tobacco: never.", "Fumo: mai.": the answer closing the item denies it
    rules += [_limited(ConTextRule(": never", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=5), _closing_answer)]
    # medspaCy's "decline"/"declining" negate forward without limit, but as a noun or an adjective they
    # refuse nothing ("osteopenia with decline on AI", "declining CEA"): care only, not over a preposition
    rules += [_limited(ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=6, allowed_types=set(CARE)),
                       _refusal)
              for c in ("decline", "declining")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=10)
              for c in ("no family history of", "no family hx of", "no fhx of", "no family history",
                        "denies family history of", "negative family history of")]
    return [with_clause_limit(r) for r in rules]


def as_phrases(rule, nlp, limit: int = 512) -> list:
    """A token-pattern rule whose tokens are only ``LOWER`` words or word sets (``IN``), some optional
    (``OP: "?"``), as the equivalent list of literal rules — the phrases it can match. spaCy's token
    Matcher evaluates every pattern's predicates at every token (a third of the NLP time on long
    notes); literal rules go to the hash-based PhraseMatcher and match the same spans. Alternatives
    holding a space ("risks of" as ONE token) can never match a token and are dropped, as the Matcher
    drops them; a rule of another shape, or whose phrases the tokenizer would split differently, is
    returned unchanged. O(number of phrases)."""
    from itertools import product

    if not isinstance(rule.pattern, list):
        return [rule]
    slots = []
    for tok in rule.pattern:
        if set(tok) - {"LOWER", "OP"} or tok.get("OP", "?") != "?" or "LOWER" not in tok:
            return [rule]
        value = tok["LOWER"]
        words = [value] if isinstance(value, str) else value.get("IN") if set(value) == {"IN"} else None
        if not words or not all(isinstance(w, str) for w in words):
            return [rule]
        words = [w for w in dict.fromkeys(words) if w and " " not in w]
        slots.append(words + ([None] if "OP" in tok else []))
    phrases = [[w for w in combo if w is not None] for combo in product(*slots)]
    phrases = [p for p in dict.fromkeys(tuple(p) for p in phrases) if p]
    if not phrases or len(phrases) > limit or any([t.lower_ for t in nlp.make_doc(" ".join(p))] != list(p)
                                                  for p in phrases):
        return [rule]
    return [rule_like(rule, " ".join(p)) for p in phrases]


def rule_like(rule, literal: str, pattern=None, max_scope=...):
    """A copy of ``rule`` under another literal (and pattern, scope): every other setting kept. O(1)."""
    from medspacy.context import ConTextRule

    return ConTextRule(literal, rule.category, pattern=pattern, direction=rule.direction, on_match=rule.on_match,
                       on_modifies=rule.on_modifies, allowed_types=rule.allowed_types,
                       excluded_types=rule.excluded_types,
                       max_scope=rule.max_scope if max_scope is ... else max_scope, max_targets=rule.max_targets,
                       terminated_by=rule.terminated_by, metadata=rule.metadata)


_GIVEN_WORDS = re.compile(r"\b(?:started|commenced|began|begun|given|received|completed|initiated|on)\b", re.I)


def _cited_choice(target, modifier, between) -> bool:
    """The care a trial is cited for: no dose written with it (a prescription), not the anchor of a time
    ("after CRT"), in a sentence that says nothing was started ("Osimertinib per FLAURA, started 3/1")."""
    before = target.doc[target.start - 1].lower_ if target.start else ""
    return not any(c.isdigit() for c in target.text) and before not in ("after", "post", "following", "since") \
        and not _GIVEN_WORDS.search(target.doc.text)  # the doc is one sentence


_NOT_TRIALS = ["NCCN", "ESMO", "ASCO", "NICE", "MDT", "MDM", "PBS", "NHS", "TGA", "FDA", "EMA", "CTCAE", "RECIST",
               "AJCC", "TNM8", "UICC", "WHO", "ECOG", "HOLD", "STAT"]
_PERFORMANCE = re.compile(r"\b(?:ECOG|PS|WHO|KPS|Karnofsky|performance|Zubrod)\b", re.I)
# what may stand between "former"/"ex" and the habit: an amount, an intensity ("former 30 pk-yr smoker")
_HABIT_BETWEEN = re.compile(r"[\s\-]*(?:(?:\d+(?:\.\d+)?|heavy|light|social|daily|occasional|cigarette|cigar|pipe|"
                            r"pk|pack|packs|py|yr|yrs|year|years|pk-yr|pack-year|pack-years|/|-)[\s\-]*)*", re.I)


def context_rules():
    """Cues clinical notes use that the stock ConText rules lack (found with bench/assertion_eval.py on
    its development notes, and from oncology usage: planned, completed, declined)."""
    from medspacy.context import ConTextRule

    hist = ["previously", "in the past", "no longer",
            "resolved", "remote history of", "years ago", "a year ago", "formerly",
            "completed", "finished", "underwent", "was treated with", "treated with", "received", "discontinued",
            "stopped", "off of",
            # "Remote R breast IDC (2009) tx'd w/ lumpectomy, XRT and tamoxifen": the written short forms
            "tx'd w/", "tx'd with", "txd w/", "txd with", "treated w/", "rx'd w/", "rx'd with"]
    rules = [ConTextRule(c, "HISTORICAL", direction="BIDIRECTIONAL", max_scope=6) for c in hist]
    # "AF on warfarin, previous TIA 2019": the adjective looks back only within its clause, not over a comma
    rules += [ConTextRule(c, "HISTORICAL", direction="BIDIRECTIONAL", max_scope=6, on_modifies=_both(reach(6), inside_parenthesis))
              for c in ("previous", "prior")]
    # "s/p L mastectomy + ALND, AC-T and PMRT": the whole list of what was done
    rules += [ConTextRule(c, "HISTORICAL", direction="BIDIRECTIONAL", max_scope=12,
                          on_modifies=reach(3, commas=True, not_back=("Cancer",)))
              for c in ("s/p", "status post")]
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=3) for c in ("quit",)]
    # "colonoscopy via end colostomy", "through the stoma": a stoma or line used as a route was made before
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=3, allowed_types={"Procedure"},
                          on_modifies=lambda target, modifier, between: _ROUTE.search(target.text) is not None and (
                              between is None or all(t.lower_ in _ROUTE_WORDS for t in between)))
              for c in ("via", "through", "thru")]
    # "her earlier radiotherapy was to the left side only": care before this one
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=2, allowed_types={"Medication", "Procedure"})
              for c in ("earlier",)]
    # "adjuvant chemo complete", "RT complete": a course over
    rules += [ConTextRule(c, "HISTORICAL", direction="BACKWARD", max_scope=3, allowed_types={"Medication", "Procedure"},
                          on_modifies=_both(reach(3), lambda target, modifier, between: _said_complete(modifier)))
              for c in ("complete", "now complete", "is complete", "all complete")]
    # "all systemic therapy already delivered pre-op (TNT)": given before this visit
    rules += [ConTextRule(c, "HISTORICAL", direction="BACKWARD", max_scope=4, allowed_types={"Medication", "Procedure"})
              for c in ("already delivered", "already given", "already received", "already completed",
                        "already administered", "already done", "already been given", "already been delivered",
                        "already had", "already underwent")]
    # "Oncotype DX ... to inform adjuvant chemo": the care is the decision a test serves
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, on_modifies=reach(3, care_only=True))
              for c in ("to inform", "to guide", "will inform", "will guide")]
    # "Haemoptysis settled by D4": a symptom over
    rules += [ConTextRule(c, "HISTORICAL", direction="BACKWARD", max_scope=4, allowed_types={"Problem"})
              for c in ("settled", "has settled", "subsided", "has subsided", "abated", "has abated")]
    # "Lumpectomy 3 months ago": care done months ago is past, unless it began then and goes on ("started
    # letrozole 2 months ago"); a complaint or diagnosis of recent onset is current ("cough started 2 months
    # ago", "Tosse seca há 3 meses", "cancer diagnosed 3 months ago")
    rules += [ConTextRule("months ago", "HISTORICAL", direction="BIDIRECTIONAL", max_scope=6, allowed_types=set(CARE),
                          on_modifies=_no_onset)]
    # "Remote R breast IDC (2009)", "a remote MI": the word before the disease only
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=3) for c in ("remote",)]
    # "Off Keppra since 1/2025", "off Coumadin": a drug no longer taken (right before it: "off-label" is not)
    rules += [ConTextRule("off", "HISTORICAL", direction="FORWARD", max_scope=1, allowed_types={"Medication"},
                          on_modifies=lambda target, modifier, between: between is None or len(between) == 0)]
    # "no chemotherapy given since CRT", "weight loss since surgery": care named as a past time point
    # ("CAPOX since 03/06/2025: oxaliplatin ...": a start date, and the care after it goes on)
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=3, allowed_types={"Procedure", "Medication"},
                          on_modifies=_both(_both(inside_parenthesis, same_clause), no_date_between))
              for c in ("since", "ever since", "since completion of", "since finishing")]
    # "weight gain 7 kg since starting alectinib": the drug began and goes on
    rules += [ConTextRule(c, "ONGOING", direction="FORWARD", max_scope=3, allowed_types={"Procedure", "Medication"})
              for c in ("since starting", "since commencing", "since beginning", "since initiation of",
                        "since initiating", "since start of", "since the start of", "since starting on")]
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=3)
              for c in ("stop", "discontinue", "d/c")]
    # return precautions and conditional plans name what the patient does not have
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=None)
              for c in ("precautions", "return precautions", "ed precautions", "precautions reviewed", "call for",
                        "return if", "call if", "warning signs", "at progression", "upon progression",
                        "on progression", "at recurrence", "should metastatic")]
    # "Pending: HPE of the resected specimen; staging CECT thorax as outpatient": a line's label of what is
    # still to come
    rules += [ConTextRule("pending:", "PLANNED", direction="FORWARD", max_scope=None, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: _opens_line(modifier))]
    # "germline testing for Lynch syndrome", "to help triage for Lynch syndrome": what a test looks for
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Cancer", "Problem"})
              for c in ("testing for", "test for", "triage for", "tested for", "genotyping for")]
    # a letter's subject names its topic, not care given: "Re: Mrs H. - post-mastectomy radiotherapy"
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=None, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: _opens_line(modifier))
              for c in ("subject:", "regarding:")]
    # "Before starting trastuzumab she will need an echo", "two more cycles of FOLFOXIRI": care to come
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("before starting", "prior to starting", "before commencing", "prior to commencing",
                        "before initiating", "prior to initiating", "more cycles of", "further cycles of",
                        # "DPYD must be back before any fluoropyrimidine"
                        "before any", "prior to any", "before giving", "prior to giving",
                        "additional cycles of", "more cycles", "further cycles")]
    # "Will influence later endocrine therapy (tamoxifen)", "for later surgery": care called later is to
    # come (not "3 months later CT showed", a time after an event; not "was later started on")
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=1, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: target.start == modifier.end
                          and not _after_a_time(modifier))
              for c in ("later", "future")]
    # "IO before ALK TKI raises hepatotoxicity risk": care as the subject of a general risk statement is
    # not care given
    rules += [_limited(ConTextRule("raises_risk", "HYPOTHETICAL", direction="BACKWARD", max_scope=6,
                                   allowed_types=set(CARE),
                                   pattern=[{"LOWER": {"IN": ["raises", "increases", "raise", "increase", "carries"]}}]),
                       lambda target, modifier, between: _risk_follows(modifier))]
    # "Proceed directly to surgery; adjuvant alectinib afterwards": a decision to go on to care (not
    # "proceeded to surgery", done)
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("proceed to", "proceed directly to", "proceed straight to", "proceed with", "to proceed to",
                        "to proceed with", "will proceed to", "will proceed with")]
    # "my recommendation is surgery first, then 12 weeks of paclitaxel with trastuzumab": the whole chain
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=None, allowed_types=set(CARE))
              for c in ("my recommendation is", "our recommendation is", "recommendation is", "the plan is",
                        "plan is", "my recommendation would be", "our recommendation would be", "rec is")]
    # "appearances atypical for carcinoma": what a finding does not look like is not found (as "not
    # typical of", which medspaCy's "not" already denies)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=4, allowed_types={"Cancer", "Problem"})
              for c in ("atypical for", "atypical of", "uncharacteristic of", "uncharacteristic for")]
    # "phoned to cancel restaging CT and durvalumab C1": not done; "Rebooked CT 3/3 & durva 3/10": to come
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("cancel", "to cancel", "cancelling", "canceling")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=6, allowed_types=set(CARE),
                          on_modifies=same_clause)
              for c in ("was cancelled", "was canceled", "were cancelled", "were canceled", "cancelled", "canceled")]
    rules += [ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=8, allowed_types=set(CARE),
                          on_modifies=same_clause)
              for c in ("rebooked", "re-booked", "rescheduled", "re-scheduled", "to rebook", "to reschedule")]
    # "omit bevacizumab from cycle 8", "oxaliplatin omitted from C4 on": not given
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("omit", "omitting", "to omit", "will omit")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types=set(CARE),
                          on_modifies=same_clause)
              for c in ("omitted", "was omitted", "is omitted", "were omitted")]
    # "Anthracyclines will be avoided given her cardiac history"
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=6, allowed_types=set(CARE),
                          on_modifies=same_clause)
              for c in ("will be avoided", "to be avoided", "should be avoided", "is to be avoided", "best avoided",
                        "are to be avoided", "will be omitted", "to be omitted")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: same_clause(target, modifier, between)
                          and inside_parenthesis(target, modifier, between))
              for c in ("avoided", "was avoided")]
    # "Capecitabine held during admission", "apixaban withheld": a drug paused is not being given
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types={"Medication"},
                          on_modifies=lambda target, modifier, between: same_clause(target, modifier, between)
                          and inside_parenthesis(target, modifier, between))  # "on apixaban (held periop)": still on it
              for c in ("held", "was held", "is held", "withheld", "was withheld", "being held")]
    # "new primary lung cancer in ex-smoker on the ddx": one of the diagnoses still considered
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=8)
              for c in ("on the ddx", "on the differential", "in the differential", "in the ddx", "on ddx",
                        "remains on the differential")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=10)
              for c in ("ddx includes", "ddx incl", "differential includes", "differential diagnosis includes",
                        "ddx:", "differential:", "differential diagnosis:")]
    # "Imp: ? anal canal malignancy, DDx low rectal ca": the alternative diagnosis named after the word
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=6)
              for c in ("ddx", "d/dx", "differential diagnosis", "differential dx", "differentials")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=6)
              for c in ("c/w", "compatible with", "worrisome for", "attributed to", "initially attributed to")]
    # "after neoadjuvant TCHP", "following lumpectomy", "after long-course CRT + TME": what comes after these
    # words is over
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=5, on_modifies=hyphen_joined_only)
              for c in ("after", "following", "post", "since completing")]
    # ("node-negative HER2-positive cancer": a hyphen joins it to the word before, which it describes)
    # ("E-cadherin negative - consistent with metastatic lobular carcinoma": a result, then a dash and the
    # conclusion it supports; the word denies nothing past the dash)
    # ("HIV negative (tested 2023)", "Hep B negative": a finding right before it is denied)
    rules += [ConTextRule("negative", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=5,
                          on_modifies=lambda target, modifier, between: (
                              target.label_ == "Problem" and target.end == modifier.start
                              if target.start < modifier.start else
                              not _hyphen_joined_before(modifier) and not (
                                  between is not None and _DASH_BREAK.search(between.text))))]
    # "BAL was negative for infection": medspaCy's backward "was negative" (a test's result) would take the
    # words and leave the finding after them undenied
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8)
              for c in ("was negative for", "were negative for", "is negative for", "are negative for",
                        "came back negative for", "returned negative for")]
    # "vomiting none.": a checklist's answer right after the finding
    rules += [ConTextRule("none", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=2, allowed_types={"Problem"},
                          on_modifies=_adjacent_answer)]
    # "Clips to cavity for radiotherapy boost", "Port inserted for chemotherapy": a device placed for care
    # still to come
    rules += [ConTextRule("<device> ... for", "PLANNED", direction="FORWARD", max_scope=4, allowed_types=set(CARE),
                          pattern=[{"LOWER": {"IN": ["clip", "clips", "marker", "markers", "fiducial", "fiducials",
                                                     "seeds", "tattoo", "tattooed", "port", "portacath", "port-a-cath",
                                                     "picc", "hickman", "catheter", "spacer"]}},
                                   # only the words of placing it (any other word may be a cue of its own:
                                   # "PleurX catheter offered for ...", "PORT not indicated for pN1")
                                   *[{"LOWER": {"IN": _PLACING}, "OP": "?"}] * 3, {"LOWER": {"IN": ["for", "before"]}}])]
    # "defer SRS unless no response on MRI brain": the response is denied, not the scan
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO")
              for c in ("no response", "no clinical response", "no radiological response", "no radiologic response",
                        "no objective response", "no meaningful response")]
    # "She does not want to stop endocrine therapy": a refusal of stopping keeps the care
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO")
              for c in ("does not want to stop", "doesn't want to stop", "did not want to stop", "not want to stop",
                        "does not wish to stop", "does not want to discontinue", "did not want to discontinue",
                        "does not want to interrupt",
                        # "Pt does not want to delay RT further": she wants it now
                        "does not want to delay", "doesn't want to delay", "did not want to delay",
                        "does not wish to delay", "does not want to postpone", "did not want to postpone")]
    # refusals and unsuitability are about care ("not a candidate for lobectomy given severe COPD": the
    # COPD is real)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("refuses", "not a candidate for", "not for", "not interested in", "no interest in", "does not want",
                        "doesn't want", "did not want",
                        "not a surgical candidate for", "no indication for",
                        "opted against", "did not receive", "has not received",
                        "defer", "defers", "deferring", "hold off on", "holding off on", "forgo", "forgoing",
                        "has not taken", "have not taken", "never took", "did not take", "not taking",
                        "is not taking", "never filled",
                        "avoid", "to avoid", "prefers to avoid",
                        # "prohibitive risk even for segmentectomy", "unfit for surgery": judged unsuitable
                        "prohibitive risk for", "prohibitive risk even for", "prohibitive risk of",
                        "too high risk for", "too frail for", "unfit for", "not fit for", "medically unfit for")]
    # one rule per phrase (a second rule for the same phrase would replace the first): these negate the
    # care before them ("bevacizumab was never started") and after them ("she never started tamoxifen")
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8)
              for c in ("never started", "never initiated", "never received", "never given", "never ordered",
                        "never administered", "never pursued", "has not started", "have not started",
                        "not started", "has not picked up", "never picked up", "has not been started",
                        "have not been started", "not been started", "not yet started", "has not been given",
                        "not been given", "never received a dose", "not yet received",
                        # a prescription never obtained: "Letrozole: she never collected the prescription"
                        "never collected", "has not collected", "not collected", "never filled", "never dispensed",
                        "never took")]
    # the same with the other verbs of beginning: "durvalumab NOT yet commenced", "never initiated", and a
    # prescription never written ("Osimertinib NOT prescribed", "was not prescribed": the auxiliary is part of
    # the cue, so medspaCy's forward "was not" cannot take the words and negate what follows instead)
    rules += [ConTextRule("not_begun", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8, pattern=[
        {"LOWER": {"IN": ["was", "were", "has", "have", "had"]}, "OP": "?"},
        {"LOWER": {"IN": ["not", "never"]}}, {"LOWER": "yet", "OP": "?"}, {"LOWER": "been", "OP": "?"},
        {"LOWER": {"IN": ["commenced", "initiated", "begun", "instituted", "prescribed", "dispensed"]}}])]
    # "EGFR and ALK were not requested given the squamous histology": a reason starts, the cue's reach ends
    rules += [ConTextRule("given <reason>", "TERMINATE", direction="TERMINATE", pattern=[
        {"LOWER": {"IN": ["given", "because", "due"]}},
        {"LOWER": {"IN": ["the", "his", "her", "their", "its", "to", "of"]}}])]
    # medspaCy's "still" ends a negation's reach; "colonoscopy still NOT done" is one cue
    rules += [ConTextRule("still_not_done", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8, pattern=[
        {"LOWER": "still"}, {"LOWER": {"IN": ["has", "have", "is", "was"]}, "OP": "?"}, {"LOWER": "not"},
        {"LOWER": "yet", "OP": "?"}, {"LOWER": "been", "OP": "?"},
        {"LOWER": {"IN": ["done", "scheduled", "completed", "started", "performed", "given", "begun", "commenced"]}}])]
    rules += [ConTextRule("still pending", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8)]
    # "Surveillance colonoscopy due now - GI order placed": ordered, not done
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=4)
              for c in ("due now", "is due", "now due", "order placed", "orders placed", "is overdue")]
    # ... and the adjective before it: "Imp: overdue adjuvant WBRT after BCS"
    rules += [ConTextRule("overdue", "PLANNED", direction="BIDIRECTIONAL", max_scope=3)]
    # "To med onc next week for adjuvant chemo, then RT": the week to come holds the care of its clause (and
    # the care right before it: "CT chest next week", not "had surgery and will be seen next week")
    rules += [ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=8, allowed_types=set(CARE),
                          on_modifies=_week_to_come)
              for c in ("next week", "next month", "the following week", "later this week", "later this month")]
    # "(SBRT had been an alternative pre-op; not given)"
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=4)
              for c in ("had been an alternative", "was an alternative", "an alternative", "alternative")]
    # "Upfront mastectomy + ALND remains a reasonable alternative": the clause's subject, however long
    # ("Surgery first (WLE or mastectomy + axillary surgery) followed by adjuvant chemo-HER2 is an acceptable
    # alternative at this size")
    rules += [ConTextRule(f"{verb}{article} {adj}{noun}", "HYPOTHETICAL", direction="BACKWARD", max_scope=20,
                          on_modifies=reach(20))
              for verb in ("", "is ", "remains ", "would be ")
              for adj in ("reasonable ", "acceptable ", "valid ", "appropriate ", "equally valid ", "")
              for noun in ("alternative", "option") if verb or adj
              for article in ["an" if (adj or noun)[0] in "aeiou" else "a"]]
    # "the PET-CT ordered on 6/16 was denied by her insurer"
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=8)
              for c in ("was denied", "were denied", "denied by", "not approved", "not authorized",
                        "was not approved", "was not authorized")]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=8)
              for c in ("suggest", "suggests", "advise")]  # "advised", "suggested": both ways, below
    # "LAR 5/6 cancelled by pt", "CANCELLING 5/6 surgery": booked, then not done
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=6)
              for c in ("cancelled", "canceled", "cancelling", "canceling", "was cancelled", "was canceled",
                        "no-showed", "no showed")]
    # "Second opinion concurred with TME", "pt agrees with the plan for surgery": a recommendation seconded
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("concurred with", "concurs with", "agreed with", "agrees with", "in agreement with",
                        "endorsed", "endorses")]
    # "opted for mastectomy over BCS", "chose surgery in preference to SBRT": the care passed over
    rules += [ConTextRule("over", "NEGATED_EXISTENCE", direction="FORWARD", max_scope=3, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: bool(
                              _CHOICE.search(target.doc.text[max(0, modifier.start_char - 60):modifier.start_char])))]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("in preference to", "instead of")]
    # "Durvalumab C1 on 03/06 did NOT go ahead - admitted with pneumonia", "re-biopsy 25.09. did not take
    # place": the care before the words was not given, and their "not" negates nothing after them
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("did not go ahead", "didn't go ahead", "did not take place", "didn't take place",
                        "did not happen", "didn't happen", "did not proceed", "didn't proceed",
                        "did not occur", "was not done", "never took place", "never happened")]
    # "TME was booked 6/24/25 -- postponed at pt request": booked, then put off (care only: a "postponed
    # visit" says nothing of a disease)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=16, allowed_types=set(CARE))
              for c in ("postponed", "was postponed", "were postponed", "postponing", "rescheduled",
                        "was rescheduled", "put off")]
    # "C2 AC postponed 1 wk, now 6/17/24", "surgery rescheduled to 7/2": put off to a new day, still to come
    rules += [ConTextRule("postponed <when>", "PLANNED", direction="BIDIRECTIONAL", max_scope=16,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": {"IN": ["postponed", "rescheduled", "delayed", "deferred", "pushed"]}},
                              {"LOWER": {"IN": ["to", "until", "till", "for", "by", "back", "out"]}, "OP": "?"},
                              {"LOWER": {"IN": ["by", "to", "until", "for"]}, "OP": "?"},
                              {"LIKE_NUM": True}])]
    # "Pt instructed to go to ED now for CBC, blood cultures, CXR": told to have it done, not done yet
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=None, allowed_types=set(CARE))
              for c in ("instructed to", "was instructed to", "advised to go", "told to go", "sent to the ED for",
                        "sent to ED for", "directed to")]
    # "Surveillance CT chest q6 months x 2-3 yrs", "CEA every 3 months": a schedule is care still to come
    # (a drug's "q3w" is its dosing interval, not a plan: "Trastuzumab q3w continues")
    rules += [ConTextRule("q<N> <unit>", "PLANNED", direction="BACKWARD", max_scope=3, allowed_types={"Test", "Procedure"},
                          pattern=[{"LOWER": {"REGEX": r"^(?:q|every)$|^q\d+(?:-\d+)?(?:mo|mos|m|wk|wks|w|y|yr|yrs)?$"}},
                                   {"LIKE_NUM": True, "OP": "?"}, {"TEXT": "-", "OP": "?"}, {"LIKE_NUM": True, "OP": "?"},
                                   {"LOWER": {"IN": ["months", "month", "mo", "mos", "weeks", "week", "wk", "wks",
                                                     "years", "year", "yr", "yrs"]}, "OP": "?"}])]
    # "Cardiology in 4 wks with Holter", "repeat CT in 3 months": care at a time still to come
    rules += [ConTextRule("in <N> <unit>", "PLANNED", direction="BIDIRECTIONAL", max_scope=4, allowed_types=set(CARE),
                          pattern=[{"LOWER": "in"}, {"LIKE_NUM": True}, {"TEXT": "-", "OP": "?"}, {"LIKE_NUM": True, "OP": "?"},
                                   {"LOWER": {"IN": ["days", "weeks", "week", "wks", "wk", "months", "month", "mo",
                                                     "mos", "years", "year", "yrs"]}}])]
    # "3-month CT chest not attended", "did not attend her MRI": the appointment, not the care, happened
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=6, allowed_types=set(CARE))
              for c in ("not attended", "was not attended", "were not attended", "did not attend", "didn't attend",
                        "failed to attend", "did not show", "didn't show", "was missed", "were missed")]
    # "CT chest in 3 months", "CEA every 3 months": a schedule, still to come
    rules += [ConTextRule("in|every <n> <unit>", "PLANNED", direction="BACKWARD", max_scope=6,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": {"IN": ["in", "every", "q"]}}, {"LOWER": {"IN": _COUNTS}},
                              {"LOWER": {"IN": ["month", "months", "mo", "mos", "week", "weeks", "wk", "wks", "year",
                                                "years", "yr", "yrs"]}}])]
    # "colonoscopy 1 yr post-op (~03/2025)", "CT 3 months after RT": an interval from an event is a schedule
    rules += [ConTextRule("<n> <unit> post", "PLANNED", direction="BACKWARD", max_scope=4, allowed_types={"Test"},
                          on_modifies=_both(same_clause, _no_result_in_clause), pattern=[
                              {"LOWER": {"IN": _COUNTS}},
                              {"LOWER": {"IN": ["month", "months", "mo", "mos", "week", "weeks", "wk", "wks", "year",
                                                "years", "yr", "yrs"]}},
                              {"LOWER": {"IN": ["post", "post-op", "postop", "post-operatively", "after", "following",
                                                "from"]}}])]
    # "colonoscopy at 1 year", "CT thorax at 3 months": a time point of a schedule is still to come (not "CEA
    # at 6 months was 2.1", a result)
    rules += [ConTextRule("at <n> <unit>", "PLANNED", direction="BACKWARD", max_scope=3, allowed_types={"Test"},
                          on_modifies=_both(same_clause, _no_result_in_clause), pattern=[
                              {"LOWER": "at"}, {"LOWER": {"IN": _COUNTS}},
                              {"LOWER": {"IN": ["month", "months", "mo", "mos", "week", "weeks", "wk", "wks", "year",
                                                "years", "yr", "yrs"]}}])]
    # "LAR + loop ileostomy was booked 6/24/25": a booking is a plan, whatever its date; and what it names
    # after it, in its clause ("-> booked lap ULAR/TME + loop ileostomy 03/07/25")
    booked = ("booked", "was booked", "were booked", "is booked", "are booked", "booked for",
              # "C1 TCHP is provisionally pencilled for 09/10"
              "pencilled for", "pencilled in", "penciled for", "penciled in")
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=10, allowed_types=set(CARE)) for c in booked]
    # ... and what a booking names after it: "-> booked lap ULAR/TME + loop ileostomy 03/07/25", "I have booked
    # colonoscopy", "Booked for L wide local excision" (the longer cue wins over the bare "booked" above)
    ahead = {"direction": "FORWARD", "max_scope": 10, "allowed_types": set(CARE), "on_modifies": _booked_reach}
    rules += [ConTextRule(c, "PLANNED", **ahead)
              for c in ("have booked", "has booked", "i've booked", "we've booked", "i booked", "we booked")]
    rules += [ConTextRule("<arrow> booked", "PLANNED", **ahead,
                          pattern=[{"TEXT": {"IN": ["->", "→", "=>", ">"]}}, {"LOWER": {"IN": list(booked)}}])]
    rules += [ConTextRule("<opening> booked", "PLANNED", **ahead,
                          pattern=[{"IS_SENT_START": True, "LOWER": "booked"}, {"LOWER": {"IN": ["for", "in"]}, "OP": "?"},
                                   {"LOWER": "for", "OP": "?"}])]
    # "Indicated surgical treatment - anterior resection with TME": a sentence opened by what the care is called
    # for (a Slavic or Romance note's word order, read in its gloss; "Wskazane leczenie operacyjne") plans it
    rules += [ConTextRule("<opening> indicated", "PLANNED", direction="FORWARD", max_scope=10, allowed_types=set(CARE),
                          pattern=[{"IS_SENT_START": True, "LOWER": {"IN": ["indicated", "warranted"]}}],
                          on_modifies=_not_an_agent)]
    # "Indication for PMRT: node positive, LVI +", "no indication for adjuvant chemo" (negated first): why the care
    # is called for, the care still to come
    # (not a test: "Indication for the CT: staging" opens the report of the scan done)
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types={"Medication", "Procedure"},
                          on_modifies=_not_told_done)
              for c in ("indication for", "indications for")]
    # "- Thereafter PMRT, then letrozole 2.5 mg OD for 5-10 yrs.": an item that goes on with a plan's sequence
    # (not "Thereafter she received PMRT", told as done)
    rules += [ConTextRule("<opening> thereafter", "PLANNED", direction="FORWARD", max_scope=12, allowed_types=set(CARE),
                          pattern=[{"IS_SENT_START": True, "LOWER": {"IN": ["thereafter", "subsequently",
                                                                              "afterwards"]}}],
                          on_modifies=_not_told_or_dated)]
    # "provisional theatre slot held 16.06 and provisional chemo-day slot 10.06": a slot held is a booking
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("provisional", "provisionally", "tentative", "tentatively")]
    # "We went through both routes the MDT recommended: neoadjuvant TCHP ... followed by surgery, or upfront
    # surgery followed by adjuvant chemotherapy": every treatment of the routes is an option
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", allowed_types=set(CARE))
              for c in ("both routes", "both options", "both approaches", "both pathways", "two routes",
                        "two options", "two approaches", "either route", "either option", "either approach")]
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("slot", "slot held", "slot booked", "slots")]
    # "RT was part of the plan after lumpectomy": the plan, not the care
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=4)
              for c in ("part of the plan", "was part of the plan", "is part of the plan", "part of plan",
                        "were part of the plan", "are part of the plan")]
    # "Restaging CT: originally 4/15 - pt no-show (transport)": booked, not attended
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=10)
              for c in ("no-show", "no show", "did not show", "did not attend", "missed appointment",
                        "missed her appointment", "missed his appointment", "did not turn up", "didn't turn up",
                        "failed to turn up", "did not show up", "didn't show up", "failed to show up")]
    # "Pt DNA CT chest 14/04/25", "Rebooked - DNA'd again": British "did not attend" (the letters alone are
    # the molecule: "ctDNA", "DNA + RNA panel"), so only after a patient or with its verb ending
    rules += [ConTextRule("<patient> DNA", "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": {"IN": ["pt", "patient", "he", "she"]}}, {"TEXT": {"IN": ["DNA", "DNAd", "DNA'd", "DNA’d"]}}])]
    rules += [ConTextRule("DNA'd", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8,
                          allowed_types=set(CARE), pattern=[{"TEXT": {"IN": ["DNAd", "DNA'd", "DNA’d", "DNA'ed"]}}])]
    # "The right consolidation is osimertinib", "the preferred option would be SABR": what should be given
    # ("right" only before a word of choice: "the right breast is healed" is a side)
    rules += [ConTextRule("the <right> <care> is", "PLANNED", direction="FORWARD", max_scope=6,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": "the"},
                              {"LOWER": {"IN": ["correct", "appropriate", "recommended", "preferred", "best",
                                                "optimal", "ideal"]}},
                              {"IS_ALPHA": True, "OP": "{0,2}"},
                              {"LOWER": {"IN": ["is", "would", "will", "should"]}}]),
              ConTextRule("the right <choice> is", "PLANNED", direction="FORWARD", max_scope=6,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": "the"}, {"LOWER": "right"},
                              {"LOWER": {"IN": ["treatment", "therapy", "consolidation", "option", "choice", "approach",
                                                "regimen", "plan", "drug", "management", "operation", "adjuvant",
                                                "next"]}},
                              {"IS_ALPHA": True, "OP": "?"},
                              {"LOWER": {"IN": ["is", "would", "will", "should"]}}])]
    # a report field's value: "Perforation ......... absent", "Perforation: absent", "Tumour deposits: nil"
    rules += [ConTextRule("<field>: absent", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=6, pattern=[
        {"TEXT": {"REGEX": r"^(?::|\.{2,}|=)$"}, "OP": "+"}, {"LOWER": {"IN": ["absent", "nil"]}}])]
    # "MD to decide on restart after CT": what the decision waits for is still to come
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=8)
              for c in ("to decide", "will decide", "to determine", "will determine")]
    # "HOLD durvalumab start", "hold capecitabine until counts recover": not given now
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=3)
              for c in ("hold", "holding", "withhold", "withholding", "suspend")]
    # medspaCy's own "negative for", "without", "declines", "never had" (forward, unbounded: a review-of-
    # systems list is longer than any fixed scope) stay; a graphkit rule for the same phrase replaces it
    # ("63F never smoker, stage IVB lung adenocarcinoma": the smoking only, not past the comma)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=6, on_modifies=_never_reach)
              for c in ("never",)]
    # "Explained chance of organ preservation with TNT, extra chemotherapy toxicity": an explanation to the
    # patient names care being weighed, not given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=12, allowed_types=set(CARE))
              for c in ("explained", "we explained", "i explained", "explained to him", "explained to her",
                        "explained to the patient", "explanation of")]
    # counselling about side effects names diseases and drugs the patient does not have or take
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=12)
              for c in ("counseled on", "counselled on", "counseled about", "counselled about", "counseling on",
                        "counselling on", "side effects include", "side effects including", "risks include",
                        "risks including", "risks of", "warned about", "educated on", "educated about",
                        "potential side effects", "implications of",
                        "side effects of", "toxicities of", "toxicity of", "pros and cons of", "risks and benefits of",
                        "benefits and risks of", "long-term effects of", "late effects of")]
    # "Patient informed about short-course RT 25 Gy/5 fr (acute/late effects)": the treatment talked over
    # (not "informed of the biopsy results": what was done and found)
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8, allowed_types={"Medication", "Procedure"},
                          on_modifies=_no_findings_between)
              for c in ("informed about", "informed of", "informed regarding", "informed re")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8) for c in ("no new", "no further")]
    # "Nil peripheral neuropathy. Nil fevers/rigors.": British and Australian "no" ("nil by mouth" is a fast)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=5) for c in ("nil",)]
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO") for c in ("nil by mouth", "nil per os", "nil orally")]
    # a toxicity checklist's "Mucositis - none.", "Diarrhoea – nil": the answer after the finding's name
    # ("- Nil fevers" at a bullet's start is the British "no", forward)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=3, on_modifies=_answer_or_bullet)
              for c in ("- none", "– none", "- nil", "– nil")]
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO") for c in ("- none of", "– none of")]
    # "profile supports lung primary and argues against metastatic colorectal carcinoma"
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=6, allowed_types={"Cancer", "Problem"})
              for c in ("argues against", "argue against", "arguing against", "speaks against", "speak against")]
    # "Hand-foot syndrome gr 0", "neuropathy G0": a toxicity graded zero is absent (CTCAE)
    rules += [ConTextRule("grade 0", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types={"Problem"},
                          pattern=[{"LOWER": {"IN": ["gr", "gr.", "grade", "g", "ctcae"]}}, {"TEXT": "0"}])]
    rules += [ConTextRule("g0", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types={"Problem"},
                          pattern=[{"LOWER": {"IN": ["g0", "gr0", "grade0"]}}])]
    # "ex-smoker (40 py)", "former 30 pk-yr smoker", "ex heavy drinker": a habit given up is history
    # (only across an amount or an intensity: "her former oncologist noted fatigue" is today's fatigue)
    habit = lambda target, modifier, between: bool(_HABIT_BETWEEN.fullmatch(between.text))  # noqa: E731
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=7, allowed_types={"Problem"},
                          on_modifies=habit)
              for c in ("former", "ex")]
    # a toxicity table's row graded (or counted) zero: "| Hand-foot syndrome | 0 | |" is absent (a
    # performance status of 0 is a value, not an absence)
    rules += [ConTextRule("| 0 |", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=10, allowed_types={"Problem"},
                          pattern=[{"TEXT": "|"}, {"TEXT": "0"}, {"TEXT": "|"}],
                          on_modifies=lambda target, modifier, between: modifier.start == target.end
                          and not _PERFORMANCE.search(target.text))]
    # "osimertinib after CRT per LAURA": care named with the trial that supports it is the evidence for a
    # choice, not care given (the team names, the drug funder and the referrer are no trials)
    rules += [ConTextRule("per TRIAL", "HYPOTHETICAL", direction="BACKWARD", max_scope=6, allowed_types=set(CARE),
                          pattern=[{"LOWER": {"IN": ["per", "cf", "cf."]}},
                                   {"TEXT": {"REGEX": r"^[A-Z][A-Z0-9-]{3,}$", "NOT_IN": _NOT_TRIALS}}],
                          on_modifies=_both(reach(5, care_only=True), _cited_choice))]
    # "We also mentioned the possibility of adjuvant immunotherapy after chemotherapy": care talked about
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("possibility of", "the possibility of", "option of", "the option of", "potential role for",
                        "potential role of", "role for", "the role of")]
    # "Volumetry: FLR after right hepatectomy 38%", "ppoFEV1 after lobectomy 62%": what would remain after an
    # operation being weighed, not one done
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("flr after", "flr post", "flr following", "future liver remnant after", "liver remnant after",
                        "remnant after", "ppo fev1 after", "ppofev1 after", "ppo dlco after", "ppodlco after",
                        "predicted postoperative fev1 after", "predicted post-operative fev1 after",
                        "predicted postoperative", "predicted post-operative")]
    # "non-smoker", "non-tender": the prefix denies the one word it is joined to
    rules += [ConTextRule("non-", "NEGATED_EXISTENCE", direction="FORWARD", max_scope=1, allowed_types={"Problem"},
                          pattern=[{"LOWER": "non"}, {"TEXT": "-"}],
                          on_modifies=lambda target, modifier, between: target.start == modifier.end and len(target) == 1)]
    # "would normally have had CAPOX/FOLFOX started within ~8 wks", "should have received adjuvant chemo": care
    # that ought to have been given (a counterfactual), not care given
    rules += [ConTextRule("<would> have had", "HYPOTHETICAL", direction="FORWARD", max_scope=8, allowed_types=set(CARE),
                          pattern=[{"LOWER": {"IN": ["would", "should", "could", "ought"]}},
                                   {"LOWER": {"IN": ["normally", "usually", "ideally", "typically", "ordinarily",
                                                     "otherwise", "to"]}, "OP": "?"},
                                   {"LOWER": "have"},
                                   {"LOWER": {"IN": ["had", "received", "got", "started", "begun", "been", "undergone",
                                                     "commenced"]}}])]
    # "Kadcyla was meant to run concurrently": what should have happened, not what did
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("was meant to", "were meant to", "was supposed to", "were supposed to", "was to have")]
    # "classic ILC is almost always ER-positive": what a tumour type usually shows, not this tumour's result
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6, allowed_types={"Biomarker"})
              for c in ("almost always", "nearly always", "usually", "typically", "generally", "most often",
                        "commonly", "in most cases", "tends to be", "tend to be", "expected to be", "likely to be")]
    # "added on the assumption of RAS wild type (left sided) before NGS resulted": a guess, not a result
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=5)
              for c in ("assumption of", "on the assumption", "assuming", "presuming", "presumably")]
    # "lists HER2-neg and stage IIA - based on the outside report, superseded": a result replaced by a later one
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=12,
                          allowed_types={"Biomarker", "Stage"})
              for c in ("superseded", "outdated", "out of date", "out-of-date", "no longer accurate", "no longer valid",
                        "obsolete", "erroneous", "in error", "was incorrect", "is incorrect", "incorrect")]
    # "originally reported HER2 1+; our review shows HER2 3+": the first reading, since revised
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=4, allowed_types={"Biomarker", "Stage"})
              for c in ("originally reported", "initially reported", "previously reported", "originally read as",
                        "initially read as", "originally called", "initially called")]
    # "the letter of 20/03 incorrectly gave the stage as stage IIIA": a reading the writer corrects
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=6, allowed_types={"Biomarker", "Stage"})
              for c in ("incorrectly", "wrongly", "erroneously", "mistakenly")]
    # "N category changed from pN1b to pN2a": the reading the report replaced (the scope ends before "to")
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=2, allowed_types={"Biomarker", "Stage"})
              for c in ("changed from", "revised from", "amended from", "corrected from", "upstaged from",
                        "downstaged from", "reclassified from", "upgraded from", "downgraded from")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=4, allowed_types={"Biomarker"})
              for c in ("to be confirmed", "has to be confirmed", "needs confirmation", "needs to be confirmed",
                        "must be confirmed", "awaiting confirmation")]
    # "she'll think about radiation once ...": care the patient is still weighing
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("think about", "thinking about", "think over", "thinking over", "thinks about",
                        "weighing", "undecided about", "unsure about", "reconsider", "reconsidering")]
    # words that hold a cue word without its meaning ("prior auth" is not history, "prior to surgery" is a plan)
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO")
              for c in ("prior auth", "prior authorization", "prior authorisation", "prior to",
                        # a histology's name: "invasive carcinoma of no special type (IDC-NST)"
                        "no special type", "of no special type")]
    # fitness for a treatment is not the treatment ("PFTs adequate - fit for lobectomy")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4)
              for c in ("fit for", "unfit for", "eligible for", "ineligible for", "suitable for", "cleared for",
                        "appropriate for", "fitness for")]
    # "eligibility for the combination encorafenib + cetuximab in a later line": the noun reaches a little further
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=7)
              for c in ("eligibility for", "eligibility to", "candidacy for", "suitability for", "eligible to")]
    # "Renal team: OK for contrast CT", "OK for surgery": a clearance for a test or an operation; a drug's
    # "counts ok for paclitaxel today" is the go-ahead of the dose given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Test", "Procedure"})
              for c in ("ok for", "okay for", "ok'd for", "okayed for")]
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=8)
              for c in ("when approved", "once approved", "pending approval", "awaiting approval",
                        "pending authorization", "awaiting authorization", "auth submitted", "start when")]
    # "Osimertinib cost ~1.2 lakh/month - mediclaim (TPA) approval sought": its funding asked for, the drug to come
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=14, allowed_types={"Medication", "Procedure"})
              for c in ("approval sought", "approval requested", "approval applied for", "approval pending",
                        "authorization sought", "authorisation sought", "authorization requested",
                        "authorisation requested", "funding sought", "funding requested", "funding applied for",
                        "funding pending", "funding application")]
    rules += [ConTextRule(c, "FAMILY", direction="BACKWARD", max_scope=6)
              for c in ("in family", "in the family", "runs in the family", "in his family", "in her family",
                        "in fdr", "in an fdr", "in a fdr", "in first-degree relative", "in a first-degree relative",
                        "in first degree relative", "in a first degree relative")]
    # "FHx breast ca (mother 41) + ovarian ca (MGM 55)": the abbreviations of family history reach, like
    # medspaCy's "family", to the sentence's end; a bare "FH" only as a heading ("FH: CRC in father")
    rules += [ConTextRule(c, "FAMILY", direction="FORWARD")
              for c in ("fhx", "fmhx", "famhx", "fhx:", "fh:", "fh of", "fh -", "fh significant for",
                        "fh notable for", "fh positive for", "fh +ve", "fh pos")]
    # "c) Completion mastectomy - she does not want this": the refusal points back at the care
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=6, allowed_types=set(CARE))
              for c in ("does not want this", "does not want that", "does not want it", "did not want this",
                        "did not want it", "is not keen on this", "declines this", "declined this")]
    # "Son requested trastuzumab", "daughter insists on surgery": a relative speaking for the patient about her
    # care, not a relative's history
    rules += [ConTextRule("<relative> requested", "PSEUDO", direction="PSEUDO", pattern=[
        {"LOWER": {"IN": ["his", "her", "their", "the", "pt's", "patient's"]}, "OP": "?"},
        {"LOWER": {"IN": [*_RELATIVES, "family", "husband", "wife", "spouse", "partner"]}},
        {"LOWER": {"IN": ["requested", "requests", "asked", "asks", "wants", "wanted", "insisted", "insists", "insistent",
                          "prefers", "preferred", "agreed", "agrees", "consented", "consents", "signed", "refused",
                          "accompanied", "accompanies", "translated", "interpreted", "joined", "queried"]}}])]
    # "with a paternal pancreatic cancer": a side of the family is a relative
    rules += [ConTextRule(c, "FAMILY", direction="FORWARD", max_scope=3, allowed_types={"Cancer", "Problem"})
              for c in ("maternal", "paternal")]
    # "colon cancer in father", "DCIS in her sister", "ovarian ca (MGM 55)": the relative named after the disease
    rules += [ConTextRule("in <relative>", "FAMILY", direction="BACKWARD", max_scope=6, pattern=[
        {"LOWER": "in"}, {"LOWER": {"IN": ["his", "her", "their", "the", "a"]}, "OP": "?"},
        {"LOWER": {"IN": ["maternal", "paternal"]}, "OP": "?"},
        {"LOWER": {"IN": list(_RELATIVES)}}])]
    # "ovarian ca (MGM 55)" and "(Mother's breast cancer)": a relative opening a parenthesis owns what is
    # before it and what is inside it
    rules += [ConTextRule("(<relative>", "FAMILY", direction="BIDIRECTIONAL", max_scope=6, pattern=[
        {"LOWER": "("}, {"LOWER": {"IN": ["his", "her", "their", "the", "a"]}, "OP": "?"},
        {"LOWER": {"IN": ["maternal", "paternal"]}, "OP": "?"},
        {"LOWER": {"IN": list(_RELATIVES)}}])]
    # "the breast ca in her chart is her mother's": the disease said to be a relative's
    rules += [ConTextRule("is <relative>'s", "FAMILY", direction="BACKWARD", max_scope=6, pattern=[
        {"LOWER": {"IN": ["is", "was", "are", "were"]}}, {"LOWER": {"IN": ["his", "her", "their", "the"]}, "OP": "?"},
        {"LOWER": {"IN": ["maternal", "paternal"]}, "OP": "?"},
        {"LOWER": {"IN": list(_RELATIVES)}}, {"LOWER": {"IN": ["'s", "'"]}}])]
    # "mother d. ovarian ca at 45": "d." (died) is no sentence's end after a relative
    rules += [ConTextRule("<relative> d.", "FAMILY", direction="FORWARD", max_scope=6, pattern=[
        {"LOWER": {"IN": list(_RELATIVES)}}, {"LOWER": {"IN": ["d.", "dec.", "dec'd"]}}])]
    # "Mum had ovarian ca at 49, MGM breast ca": the British "mum" and the grandparents' abbreviations read
    # forward like medspaCy's own relatives ("mother ...")
    rules += [ConTextRule("<relative>", "FAMILY", direction="FORWARD", pattern=[
        {"LOWER": {"IN": ["mum", "mums", "mummy", "mgm", "pgm", "mgf", "pgf"]}},
        {"LOWER": {"IN": ["'s", "'"]}, "OP": "?"}])]
    # "her friend stopped anastrozole for joint pains", "a neighbour had a lumpectomy": another person's care or
    # disease, not the patient's (medspaCy's other experiencer; the gold's assertion for it is family's)
    rules += [ConTextRule(c, "FAMILY", direction="FORWARD", max_scope=6,
                          allowed_types={"Cancer", "Problem", "Medication", "Procedure", "Test"})
              for c in ("friend", "friends", "her friend", "his friend", "a friend", "neighbour", "neighbor",
                        "colleague", "co-worker", "coworker", "roommate", "flatmate", "friend's", "neighbour's",
                        "neighbor's", "colleague's")]
    # "FDR w/ CRC <60": a first-degree relative's cancer
    rules += [ConTextRule(c, "FAMILY", direction="FORWARD", max_scope=6)
              for c in ("fdr", "fdrs", "first-degree relative", "first degree relative", "1st-degree relative",
                        "1st degree relative", "first-degree relatives", "family member", "family members",
                        # "two paternal relatives with CRC" (the singular alone is also "relative risk")
                        "relatives", "relative with", "relative had", "relative dx", "relative diagnosed")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=5)
              for c in ("not identified", "not seen", "not present", "is absent", "are absent", "was declined",
                        "were declined", "was deferred", "not a candidate",
                        # "liver resection not feasible": judged impossible, not done
                        "not feasible", "not technically feasible", "was not feasible", "is not feasible", "infeasible",
                        "not possible", "is not possible", "was not possible", "not technically possible",
                        # "T-DM1 was discussed but never ordered": care named, then said not to have happened
                        "was not started", "were not started", "was never", "were never",
                        # "Adjuvant chemotherapy has NOT yet been given"
                        "not yet been given", "not yet given", "not yet been started", "not been administered",
                        "not yet begun", "not been received", "not been delivered", "not yet delivered",
                        # "Oxaliplatin not added (age, neuropathy)": a drug left out of the regimen
                        "not added", "was not added", "were not added", "not be added", "left out")]
    # "adjuvant osimertinib was flagged at tumour board, but it was never prescribed": the clause's subject,
    # however far back, was never given (not the board, nearer the "but")
    rules.append(ConTextRule("but_never_given", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=20,
                             allowed_types=set(CARE), on_modifies=_subject_before_but, pattern=[
        {"LOWER": "but"}, {"LOWER": {"IN": ["it", "this", "they", "these", "that"]}, "OP": "?"},
        {"LOWER": {"IN": ["was", "were", "has", "have", "had"]}, "OP": "?"}, {"LOWER": {"IN": ["never", "not"]}},
        {"LOWER": "been", "OP": "?"},
        {"LOWER": {"IN": ["prescribed", "started", "given", "ordered", "commenced", "dispensed", "initiated",
                          "administered", "begun", "received", "booked", "arranged", "done", "performed"]}}]))
    # a diagnosis the work-up excluded ("Lung cancer ruled out - histoplasmoma", "malignancy excluded");
    # medspaCy's own "ruled out" reads forward only ("ruled out for PE"), this one both ways
    rules += [ConTextRule("ruled out", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=4)]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=3)
              for c in ("was excluded", "were excluded", "been excluded")]
    # ("CT pulmonary angiogram excluded a pulmonary embolism": a test's finding, forward)
    rules += [ConTextRule("excluded", "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=3,
                          on_modifies=lambda target, modifier, between: (
                              target.label_ != "Test" if target.start < modifier.start else
                              target.label_ in ("Problem", "Cancer") and modifier.end < len(modifier.doc)
                              and modifier.doc[modifier.end].lower_ not in ("from", "by", "as", "because", "due")))]
    # "PET-CT not available within timeframe": care that could not be had was not done
    # (and a drug: "Consolidation durvalumab not available - PD-L1 <1%")
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("not available", "unavailable", "was not available", "is not available")]
    # a drug's access is no dose of it: "Pembrolizumab not on the state formulary", "not registered",
    # "not funded"; "carboplatin/pemetrexed available" names what could be given, not what was
    rules += [ConTextRule("off_formulary", "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=4,
                          allowed_types=set(CARE), pattern=[
        {"LOWER": {"IN": ["not", "isn't", "no", "non"]}}, {"LOWER": {"IN": ["on", "in"]}, "OP": "?"},
        {"LOWER": {"IN": ["the", "our", "a"]}, "OP": "?"}, {"IS_ALPHA": True, "OP": "?"},
        {"LOWER": {"IN": ["formulary", "registered", "funded", "reimbursed", "licensed", "stocked"]}}])]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=3, allowed_types={"Medication"})
              for c in ("available", "is available", "are available", "available locally", "in stock",
                        "on formulary", "on the formulary")]
    # an access request still in the works ("tepotinib - the regulator still processing", "application for
    # capmatinib submitted"): the drug is awaited
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=6, allowed_types={"Medication", "Procedure"})
              for c in ("still processing", "being processed", "still being processed", "in process",
                        "under review", "still under review")]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=3, allowed_types={"Medication", "Procedure"})
              for c in ("application for", "applied for", "access programme for", "access program for",
                        "compassionate use of", "compassionate access to", "compassionate use for",
                        "expanded access for", "named patient programme for", "named-patient access to")]
    # "7. Tab. Calcium + vitamin D3 - HOLD till review": a medication list's instruction
    # (an instruction closing the item, not "(durvalumab) - hold durvalumab", whose "hold" reads forward)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8, allowed_types={"Medication"},
                          on_modifies=_closing_instruction)
              for c in ("- hold", "– hold", "- on hold", "– on hold", "- withhold", "- held")]
    # "morphology and IHC exclude NSCLC"
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=3, allowed_types={"Cancer", "Problem"})
              for c in ("exclude", "excludes", "excluding")]
    # "Primary lung neoplasm with hilar nodal spread cannot be excluded": the whole subject of the clause
    # it ends, however many words, up to a comma or a new clause
    # (with a hedge between: "cannot be entirely excluded", "not completely ruled out")
    rules += [ConTextRule(f"{neg} {hedge}{verb}".replace("  ", " "), "POSSIBLE_EXISTENCE", direction="BACKWARD",
                          max_scope=10, on_modifies=_subject_reach)
              for neg in ("not", "not been", "cannot be", "can't be", "could not be", "can not be")
              for hedge in ("", "entirely ", "completely ", "fully ", "definitely ", "definitively ", "confidently ",
                            "totally ", "reliably ", "absolutely ", "firmly ", "yet ", "100% ")
              for verb in ("excluded", "ruled out")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=3)
              for c in ("not confirmed", "not yet confirmed", "not been confirmed", "unconfirmed")]
    # "the initial concern for malignancy was not borne out": a suspicion refuted, the whole subject before it
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=10, on_modifies=_subject_reach)
              for c in ("not borne out", "was not borne out", "were not borne out", "has not been borne out",
                        "not substantiated", "was not substantiated", "was unfounded", "were unfounded")]
    # "could represent a cavitating primary malignancy": a reading offered, not a finding
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=6, allowed_types={"Cancer", "Problem"})
              for c in ("could represent", "may represent", "might represent", "could reflect", "may reflect",
                        "might reflect", "possibly representing", "could indicate", "may indicate")]
    # "Plan: treat as HER2 +ve given 2+ and high grade": a working assumption for the treatment, not a result
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Biomarker", "Stage"})
              for c in ("treat as", "treated as", "treating as", "to be treated as", "manage as", "managed as",
                        "managing as", "regard as", "regarded as", "assume", "assumed", "assuming")]
    # "managed under the small bowel guideline (data extrapolated from colon cancer)": a disease evidence is
    # borrowed from, not the patient's
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Cancer", "Problem"})
              for c in ("extrapolated from", "by analogy with", "by analogy to", "analogous to", "borrowed from")]
    # "ER result DISCORDANT with core biopsy (ER 0%)": the result compared with is another specimen's, earlier
    rules += [ConTextRule(c, "HISTORICAL", direction="FORWARD", max_scope=6, allowed_types={"Biomarker"},
                          on_modifies=_both(_earlier_specimen, same_clause)) for c in COMPARED_WITH]
    # "rectal adenocarcinoma until proven otherwise", "stage IA2 if confirmed NSCLC": a working diagnosis
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=8,
                          allowed_types={"Cancer", "Problem", "Stage", "Biomarker"})
              for c in ("until proven otherwise", "unless proven otherwise", "until proved otherwise",
                        "pending confirmation", "subject to confirmation", "awaiting confirmation")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BIDIRECTIONAL", max_scope=6,
                          allowed_types={"Cancer", "Problem", "Stage", "Biomarker"})
              for c in ("if confirmed", "if proven", "if confirmed as", "if proven to be")]
    # "(bronchogenic ca to be r/o)": a diagnosis the work-up is still to exclude
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=4)
              for c in ("to be ruled out", "to be r/o", "to be excluded", "yet to be excluded", "yet to be ruled out")]
    # "cannot exclude metastasis vs cyst": a possibility kept open, not an exclusion
    rules += [ConTextRule(f"{neg} {hedge}{verb}".replace("  ", " "), "POSSIBLE_EXISTENCE", direction="FORWARD",
                          max_scope=6)
              for neg in ("cannot", "can not", "can't", "could not", "unable to", "not able to")
              for hedge in ("", "entirely ", "completely ", "fully ", "definitely ", "definitively ", "confidently ",
                            "totally ", "reliably ", "absolutely ")
              for verb in ("exclude", "rule out")]
    # a biopsy "nondiagnostic for malignancy" neither shows nor excludes it
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=4)
              for c in ("nondiagnostic for", "non-diagnostic for", "non diagnostic for", "not diagnostic of",
                        "not diagnostic for", "inconclusive for")]
    # the care these name is the clause's subject, often several words back ("T-DM1 was discussed after
    # surgery but never ordered")
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=10)
              for c in [p + w for p in ("but ", "but was ", "but were ")
                        for w in ("never ordered", "never given", "never started", "never initiated",
                                  "never administered", "never pursued", "not ordered", "not administered",
                                  "not pursued", "not given", "not started")]
              + ["not ordered", "not administered", "not pursued",
                 # "Surgery has NOT happened", "the resection did not take place"
                 "has not happened", "have not happened", "not happened", "did not happen", "never happened",
                 # "the 1-year surveillance colonoscopy (due Feb 2025) has NOT been done"
                 "not been done", "has not been done", "have not been done", "not yet been done", "not yet done",
                 "not been performed", "has not been performed", "never done", "was never done",
                 "never performed", "was never performed",
                 "has not occurred", "did not occur", "has not taken place", "did not take place",
                 "not yet happened", "has not yet happened"]]
    # "TSH next visit", "CEA at the next appointment": a check still to come
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=3, allowed_types={"Test"})
              for c in ("next visit", "at next visit", "at the next visit", "next appointment",
                        "at next appointment", "at the next appointment", "next time")]
    # "Next visit w/ surgery is Sept w/ CT", "next appt with CT chest": what the coming visit brings
    rules += [ConTextRule("<next visit> with", "PLANNED", direction="FORWARD", max_scope=10, allowed_types=set(CARE),
                          on_modifies=_not_told_done,
                          pattern=[{"LOWER": "next"}, {"LOWER": "clinic", "OP": "?"},
                                   {"LOWER": {"IN": ["visit", "appointment", "appt", "review", "f/u", "follow-up"]}},
                                   {"LOWER": {"IN": ["w/", "with", "is", "will", "in", "at"]}}])]
    # "Says nobody talked to him about chemo", "no one has offered him RT": care never raised, not given
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("nobody", "no one", "no-one", "noone")]
    # "Tissue is INSUFFICIENT for PD-L1 IHC and for NGS": the test could not be run
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=8, allowed_types={"Test"})
              for c in ("insufficient for", "inadequate for", "not sufficient for", "not adequate for",
                        "qns for", "too scant for", "too small for", "inadequate tissue for",
                        "insufficient tissue for", "insufficient material for")]
    # "too small to biopsy by EBUS": the test the size rules out follows at once ("too small to characterise -
    # MRI liver 07/2023 confirmed a simple cyst" is the MRI done)
    rules += [ConTextRule("too small to", "NEGATED_EXISTENCE", direction="FORWARD", max_scope=4, allowed_types={"Test"},
                          on_modifies=lambda target, modifier, between: not any(t.text in ("-", "–", ";") for t in between))]
    # care an event would make harder lies ahead: "risk of regrowth and fibrosis making TME harder"
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("harder", "more difficult", "more challenging", "more complex", "riskier")]
    # scope 10: "Biomarker testing (EGFR/ALK/PD-L1) not indicated" – a parenthesized list of targets between
    # (backward, not over a comma outside brackets: "26 Gy in 5 fractions daily, 07/04/2025 - 11/04/2025, 6MV,
    # DIBH not required" denies the breath-hold, not the radiotherapy)
    # (a bracketed aside counts as one word: "Annual mammogram (1st post-treatment) scheduled 10/07/2024 at
    # 09:40: NOT PERFORMED")
    # "A biopsy was not attempted given his lung function", "Talc pleurodesis not attempted as post-drainage CXR
    # showed trapped lung": what was not tried comes before (the reason after it names other care)
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=20, allowed_types=set(CARE),
                          on_modifies=_both(_words_apart(10), _both(_no_bare_comma_back, _both(_both(
                              inside_parenthesis, same_clause), no_arrow))))
              for c in ("not attempted", "was not attempted", "were not attempted", "not undertaken",
                        "was not undertaken", "not carried out", "was not carried out")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=20, allowed_types=set(CARE),
                          on_modifies=_both(_words_apart(10), _both(_no_bare_comma_back, _both(_both(
                              inside_parenthesis, same_clause), no_arrow))))
              for c in ("declined", "declines", "declines for now", "refused", "deferred", "not indicated", "not needed", "not performed", "not repeated",
                        "was not performed", "not done", "not given", "was not given", "not required",
                        "not recommended", "not appropriate", "not suitable", "inappropriate", "not sent",
                        "was not sent", "not obtained", "not checked", "not taken", "was not taken", "were not taken",
                        # "Oxaliplatin not advisable given baseline neuropathy", "molecular testing was not
                        # requested as the treatment is local"
                        "not advisable", "is not advisable", "not advised", "inadvisable", "not requested",
                        "was not requested", "were not requested",
                        # medspaCy's forward "is not" would take the "not" and negate nothing before it
                        "is not indicated", "are not indicated", "was not indicated", "is not needed",
                        "is not required", "is not recommended", "are not recommended", "is not appropriate",
                        "is not necessary", "not necessary", "not applicable", "is not applicable",
                        # ("so chemotherapy was not recommended": medspaCy's forward "was not" took the words)
                        "was not recommended", "were not recommended", "was not required", "was not needed",
                        "was not advised", "was not appropriate", "was not necessary", "were not indicated",
                        "not warranted", "is not warranted", "not an option", "is not an option",
                        # "Bevacizumab not planned - anti-EGFR preferred": "planned" alone took the word
                        "not planned", "is not planned", "was not planned")]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="FORWARD", max_scope=5) for c in ("w/o", "w/out")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8)
              for c in ("may need", "may also consider", "we may", "consider", "might", "should he", "should she",
                        "in case of", "to evaluate for", "to rule out", "options include",
                        "options including", "would consider", "could consider", "candidate for")]
    # a genomic report's therapy lines ("EGFR exon 19 deletion -> FDA-approved therapies: osimertinib,
    # erlotinib ..."): what a result would support, never what was given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=14, allowed_types=set(CARE))
              for c in ("approved therapies", "approved therapy", "approved agents", "potential therapies",
                        "therapies with clinical benefit", "therapies with potential clinical benefit",
                        "therapies with potential benefit", "therapy options", "therapeutic options",
                        "targeted therapy options", "relevant therapies", "matched therapies",
                        "predicts response to", "predictive of response to", "predicts sensitivity to",
                        "predictive of sensitivity to", "associated with response to",
                        "associated with sensitivity to", "may benefit from", "may respond to",
                        # "EGFR L858R VAF 24% - Tier IA, sensitising to EGFR TKIs (osimertinib)"
                        "sensitising to", "sensitizing to", "confers sensitivity to", "confers resistance to",
                        # "Level 1 evidence for EGFR TKIs: osimertinib, gefitinib ..."
                        "evidence for", "level 1 evidence for", "level 1 evidence", "evidence level")]
    # "if" makes what follows conditional, and the care right before it ("bevacizumab if mutated"); so do
    # "discussed" and "considered" ("AC-THP discussed as alternative", "chemo-IO considered, not favored")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=8, on_modifies=reach(4, care_only=True))
              for c in ("if", "discussed", "considered", "was considered", "were considered", "was discussed",
                        "were discussed", "as alternative", "as an alternative",
                        # "Germline genetic testing offered; he declined for now", "OFS offered"
                        "offered", "re-offered", "reoffered",
                        # "discuss durvalumab consolidation", "revisit endocrine therapy in 2 wks": still to be weighed
                        "discuss", "to discuss", "will discuss", "re-discuss", "rediscuss", "revisit", "will revisit",
                        "to revisit", "discussion of", "decision on", "decision about", "decision regarding")]
    # "Reviewed osimertinib 80 mg daily x3 yrs (ADAURA: DFS and OS benefit)": a drug reviewed is a drug talked over
    rules += [ConTextRule("reviewed", "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Medication"},
                          on_modifies=_talked_over)]
    # "for adjuvant chemotherapy discussion", "to guide chemo decision": the care is the topic of a talk
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=4, on_modifies=reach(3, care_only=True))
              for c in ("discussion", "decision", "decision-making", "conversation", "conversations", "discussions",
                        "chat")]
    # "HPE No. S/25/1123 - R BCS + SLNB", "Biopsy no. B/25/0187": a record's number, not a denial
    rules.append(ConTextRule("no. <identifier>", "PSEUDO", direction="PSEUDO", pattern=[
        {"LOWER": {"IN": ["no", "nr"]}}, {"TEXT": "."}, {"TEXT": ":", "OP": "?"},
        {"TEXT": {"REGEX": r"^[A-Za-z]{0,4}[/\-]?\d[\w/\-.]*$"}}]))
    # "osimertinib to start once drug received": the condition of a plan, not a past event
    rules.append(ConTextRule("once <thing> received", "PSEUDO", direction="PSEUDO", pattern=[
        {"LOWER": {"IN": ["once", "until", "till", "when"]}}, {"IS_ALPHA": True, "OP": "?"}, {"IS_ALPHA": True, "OP": "?"},
        {"LOWER": {"IN": ["received", "obtained", "arrives", "arrived", "delivered"]}}]))
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO")
              for c in ("as requested", "as per request", "if tolerated", "as tolerated", "if tolerating", "if he wishes", "if she wishes", "if desired")]
    planned = ["will start", "will begin", "will initiate", "plan to start", "plan to begin", "plan for",
               "plans for", "plan", "plan to",
               "to receive", "to undergo", "recommend", "recommending", "recommendation for",
               "referred for", "referral for", "refer for", "refer to", "referred to", "will proceed with",
               "referral to", "referral re", "referred re", "referral back to", "referred back to", "refer back to", "proceed to",
               "proceed with", "will undergo", "will receive", "will get", "will order", "order",
               "will obtain", "will check", "will schedule", "to schedule", "next step", "anticipate",
               "will continue with", "start", "initiate", "begin",
               # "OK to resume trastuzumab/pertuzumab", "cleared to restart": permission, not a dose given
               "ok to resume", "okay to resume", "ok to restart", "ok to start", "ok to proceed with", "cleared to resume",
               "cleared to restart", "cleared to start", "may resume", "can resume", "may restart", "can restart",
               "resume", "to resume", "will resume", "restart", "to restart", "will restart",
               # "-> switch to carboplatin + pemetrexed": the next regimen (the past tense is history)
               "switch to", "will switch to", "change to", "will change to", "convert to"]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=8) for c in planned]
    # "She will also need post-mastectomy radiotherapy": care still owed
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=6, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: not _names_time_point(target))
              for c in ("will need", "will also need", "will require", "will also require", "will still need",
                        "will likely need", "will then need")]
    # what care ought to do is not what it did: "RT should ideally not be delayed", "chemo should start
    # within 8 weeks"
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("should", "should be", "should start", "should begin", "should ideally", "ought to",
                        "needs to", "need to", "must")]
    # "Surveillance chest CT at 6 months to be arranged", "CT thorax requested today": ordered, not yet done
    # (not "CT CHEST W/ IV CONTRAST (requested by cardiology after ...)": a report's header names who asked)
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=8, allowed_types=set(CARE),
                          on_modifies=_both(_both(same_clause, _no_result_after),
                                            lambda target, modifier, between: not _names_requester(modifier)))
              for c in ("to be arranged", "to be booked", "to be scheduled", "to be requested", "to be organised",
                        "to be organized", "to be ordered", "to be prescribed", "requested",
                        "requested today", "was requested", "has been requested", "have been requested",
                        "is requested", "are requested", "were requested")]
    # "I have requested a baseline DEXA scan": a request before the test is the order
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types={"Test", "Procedure"},
                          on_modifies=_no_result_after)
              for c in ("have requested", "has requested", "i have requested", "we have requested", "i requested",
                        "we requested", "requesting")]
    # "Next echo due after C4", "restaging CT due 10/20": when it falls due, it has not been done (not "due to")
    rules += [ConTextRule("due_not_to", "PLANNED", direction="BACKWARD", max_scope=4, allowed_types={"Test", "Procedure"},
                          on_modifies=same_clause,
                          pattern=[{"LOWER": "due"}, {"LOWER": {"NOT_IN": ["to", "diligence"]}}])]
    # "CEA 3-monthly for 3 years", "diagnostic mammogram 6 months post-RT, then annual": a schedule of tests
    rules += [ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=8, allowed_types={"Test"},
                          on_modifies=_both(same_clause, _no_result_in_clause))
              for c in ("monthly", "3-monthly", "6-monthly", "annual", "annually", "yearly", "then annual",
                        "then annually", "then yearly", "biannually", "6 monthly", "3 monthly")]
    # "LAURA supports osimertinib after CRT": what trial evidence says of care, not care given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("supports", "support the use of", "supports the use of")]
    # "who also recommended TME", and right after the care: "Adjuvant chemotherapy recommended." (not
    # "FOLFOX given as recommended")
    # "MRI abdomen with hepatobiliary contrast recommended": back over the test's own words too
    rules += [ConTextRule("recommended", "PLANNED", direction="BIDIRECTIONAL", max_scope=8,
                          on_modifies=lambda target, modifier, between: target.start >= modifier.end or
                          between is None or not any(t.i < modifier.start for t in between) or
                          _names_more(target, modifier))]
    # a recommendation or plan line covers the whole chain ("Recommend: TC x4 -> WBI -> AI 5 yrs")
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=None)
              for c in ("recommend:", "recommendation:", "plan:", "recommends", "we recommend", "would recommend",
                        "is recommended to", "next steps:", "rec:", "recs:",
                        # "Discussed at length the plan of weekly paclitaxel x 12 ..., followed by radiotherapy ...
                        # and then an aromatase inhibitor": the plan's whole sequence
                        "the plan of", "a plan of", "treatment plan of", "planned sequence of",
                        # a board's proposal inside its line ('"RAS wt" -> proposal: FOLFOX + cetuximab first line')
                        "proposal:", "proposed:", "proposition:", "suggestion:")]
    # "Rec TNT with organ-preservation intent: ... then consolidation CAPOX x4": the abbreviation opening a
    # statement recommends (not "rec'd", received)
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=None, on_modifies=_opens_statement)
              for c in ("rec", "recs", "rec.")]
    # choices left open ("either upfront lobectomy or neoadjuvant chemo-IO ... are appropriate")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=10) for c in ("either",)]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=8)
              for c in ("are appropriate", "is appropriate", "would be appropriate", "are reasonable",
                        "is reasonable", "would be reasonable")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=2) for c in ("candidate",)]
    # the reason for a visit is not care given ("Reason: PMRT evaluation", "consult for adjuvant RT")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=2)
              for c in ("evaluation", "eval", "assessment for")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("evaluation for", "eval for", "referred for consideration of", "consideration of",
                        # a referral letter's "Please assess for (bi)lobectomy": the question, not the operation
                        "assess for", "evaluate for", "suitability for", "candidacy for")]
    # the reason for a consult is care to weigh, but a disease named as the reason is the patient's
    # ("Reason for referral: newly diagnosed metastatic sigmoid adenocarcinoma")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6, allowed_types=set(CARE))
              for c in ("consult for", "consultation for", "reason for referral", "reason for consultation",
                        "reason for consult")]
    # a consultation named by its department ("Consulta de Radioterapia", glossed "consultation of radiotherapy";
    # "Radiotherapy consultation" is the backward "consultation" below): the care is the consult's topic
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=2, allowed_types={"Medication", "Procedure"})
              for c in ("consultation of", "consult of", "consultation in", "clinic of", "department of")]
    # a consultation's "Reason: post-mastectomy radiotherapy": the treatment the consultant is asked about
    rules += [ConTextRule("reason:", "HYPOTHETICAL", direction="FORWARD", max_scope=6,
                          allowed_types={"Medication", "Procedure"},
                          pattern=[{"LOWER": {"IN": ["reason", "reasons"]}}, {"TEXT": ":"}])]
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=4)
              for c in ("planning", "anticipated", "expected", "referral", "to be given", "is planned",
                        "is scheduled", "will follow", "intro", "introduction", "consult", "consultation")]
    # "Rad onc referral sent (RT after BCS either way)", "RT referral placed": the care the referral is for
    rules += [ConTextRule("referral sent", "PLANNED", direction="BIDIRECTIONAL", max_scope=6,
                          allowed_types=set(CARE), pattern=[
                              {"LOWER": {"IN": ["referral", "referrals"]}},
                              {"LOWER": {"IN": ["sent", "placed", "made", "submitted", "faxed", "done"]}}])]
    # consent talk lists what may happen: "Risks incl. bleeding, prolonged air leak, pneumonia, ...",
    # "Discussed acute SEs: fatigue, radiation dermatitis, breast edema"
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=24)
              for c in ("risks incl", "risks incl.", "risks include", "risks including", "risks included",
                        "risks reviewed", "risks discussed", "risks and benefits", "risks/benefits", "risks:",
                        "side effects include", "side effects including", "side effects:", "ses:", "acute ses:",
                        "late ses:", "potential toxicities", "toxicities include", "possible side effects",
                        "potential side effects", "potential complications", "complications include",
                        "discussed risks", "discussed side effects",
                        # safety-netting lists what to call about: "Safety-netted: worsening SOB or fever"
                        "safety-netted", "safety netted", "safety-netting", "safety netting", "red flags")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=12)
              for c in ("-> call", "→ call", "then call", "-> acute oncology", "→ acute oncology", "call if",
                        "to call if", "seek advice if", "seek medical advice", "-> ED", "→ ED")]
    # a risk of a disease, or screening for it, is not the disease
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=2, excluded_types={"Test"})
              for c in ("risk", "risks", "risk assessment", "risk reduction", "screening", "surveillance program",
                        "susceptibility", "predisposition")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4)
              for c in ("risk of", "risk for", "at risk for", "at risk of", "screening for", "screen for",
                        "increased risk of", "elevated risk of", "high risk for", "high-risk for")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=2) for c in ("+/-", "+/ -", "with or without")]
    # options weighed, preferences: nothing is given yet
    rules += [ConTextRule(c, "OPTION", direction="FORWARD", max_scope=None)
              for c in ("options:", "options are", "options were", "alternatives:", "choices:", "discussed options",
                        # "Alternative: carboplatin/pemetrexed/pembrolizumab" (after the care recommended)
                        "alternative:", "alternatively:", "alternative option:", "alternative regimen:")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=6) for c in ("vs", "vs.", "versus")]
    # "Standard 1L would be carboplatin + paclitaxel + pembrolizumab": what would be, is not
    # (and back to care right before them, past adverbs only: "Sotorasib would be a later-line option")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=8,
                          on_modifies=lambda target, modifier, between: target.start >= modifier.end
                          or _adverbs_only_between(target, modifier, between))
              for c in ("would be", "could be", "would have been", "would start", "would give")]
    # "chemo can follow RT once med onc sees her": an order care could take, not care given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=4, allowed_types=set(CARE),
                          on_modifies=same_clause)
              for c in ("can follow", "could follow", "may follow", "can precede", "could precede", "may precede",
                        "can come after", "could come after", "can come before", "can be given", "could be given",
                        "may be given")]
    # wishes and offers are not care given ("she wants BCS -> upfront surgery", "OFS was offered")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("wants", "would like", "desires", "interested in", "hoping for", "hopes for",
                        "re-offer", "keen on", "keen for", "is keen on", "very keen on", "open to", "is open to")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=6)
              for c in ("both options", "are options", "as options", "as an option", "is an option", "an option")]
    # "Mastectomy + SLNB (+/- reconstruction) also discussed as an option": the talk names a list of care
    # before it, further back than a bare "discussed" reaches
    # (care only: a cue with its own target types is not cut short by a "+/-" inside the list)
    rules.append(ConTextRule("discussed_as_option", "HYPOTHETICAL", direction="BACKWARD", max_scope=11,
                             allowed_types=set(CARE), on_modifies=reach(15, care_only=True), pattern=[
        {"LOWER": "also", "OP": "?"},
        {"LOWER": {"IN": ["discussed", "offered", "considered", "mentioned", "raised", "presented", "proposed"]}},
        {"LOWER": "as"}, {"LOWER": {"IN": ["an", "a", "another", "one"]}, "OP": "?"},
        {"LOWER": {"IN": ["option", "options", "alternative", "alternatives", "possibility", "choice"]}}]))
    # "Understands that WLE + SLNB and mastectomy give the same survival": what a patient was taught about care
    # in general is not care she had ("aware that she had a mastectomy" is: a past verb in the clause)
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=10, allowed_types=set(CARE),
                          on_modifies=_general_teaching)
              for c in ("understands that", "understand that", "understood that", "is aware that", "aware that",
                        "counselled that", "counseled that")]
    # "Neoadjuvant chemo-IO (nivolumab + platinum doublet, CheckMate 816) was offered": the offer names the
    # care however long its spelled-out regimen
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=14) for c in ("was offered", "were offered")]
    # "surgeon and radiation oncologist agree to offer long-course chemoradiation": an offer still to make
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6, allowed_types=set(CARE))
              for c in ("to offer", "will offer", "plan to offer")]
    # an order sent is not a drug taken ("Rx re-sent (tamoxifen 20 mg daily)")
    rules += [ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=8)
              for c in ("rx sent", "rx re-sent", "rx resent", "rx was sent", "script sent", "prescription sent",
                        "e-prescribed", "rx called in")]
    # "Options (1) neoadjuvant ddAC-T ... (2) mastectomy first"; "otherwise mastectomy now": choices, none made
    # a category of its own: "vs" and "if" inside the list do not end its reach (same-category cues do)
    rules += [ConTextRule(c, "OPTION", direction="FORWARD", max_scope=None)
              for c in ("options", "treatment options", "alternatives", "discussed:", "discussion:",
                        "options discussed:", "options discussed")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8)
              for c in ("otherwise", "alternatively", "or else", "deciding between", "choosing between")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=8)
              for c in ("has not decided", "have not decided", "not yet decided", "undecided", "before deciding",
                        "if chosen", "if she chooses", "if he chooses", "if they choose")]
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=3)
              for c in ("unlikely", "is unlikely", "less likely", "doubtful")]
    # "Ca lung - low suspicion (never smoker)": the degree of suspicion written after a disease (not after a
    # result: "MSS, so low suspicion [of Lynch]")
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="BACKWARD", max_scope=3, allowed_types={"Cancer", "Problem"})
              for c in ("low suspicion", "low index of suspicion", "high suspicion", "high index of suspicion")]
    # care weighed and set aside ("Chemo-IO (nivolumab + platinum doublet per CheckMate 816) not favored")
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=12, allowed_types=set(CARE))
              for c in ("not favored", "not favoured", "not preferred", "not chosen", "not selected")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=4)
              for c in ("would require", "would need", "would entail", "would have required", "would mean")]
    # "WLE now would leave poor cosmesis", "a mastectomy could be avoided": care that is the subject of a
    # conditional is weighed, not given (right before the modal, or past an adverb only)
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=3, allowed_types=set(CARE),
                          on_modifies=_adverbs_only_between)
              for c in ("would", "could", "might")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=10)
              for c in ("prefers", "would prefer", "preferring", "leaning toward", "leaning towards", "leaning to", "leans toward",
                        "lean toward", "lean towards", "lean to", "leaning more toward", "leaning more towards",
                        "leans towards", "inclined toward", "inclined towards", "inclined to")]
    # a clinician's or a board's "favors X" recommends it ("Med onc: favors periop chemo"); the patient's
    # "prefers" or "leaning toward" above is still undecided
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=10, allowed_types=set(CARE))
              for c in ("favors", "favours", "consensus favors", "consensus favours", "favoured", "favored",
                        "consensus favoured", "consensus favored")]
    # "add budesonide/formoterol", "will add trastuzumab": care to come
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=3, allowed_types=set(CARE))
              for c in ("add", "to add", "will add", "plan to add")]
    # feasibility and pre-operative clearance are not the operation ("resectable by RUL lobectomy",
    # "cardiology clearance pending for surgery")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=5)
              for c in ("resectable by", "amenable to", "adequate for", "sufficient for",
                        "clearance for", "clearance pending for",
                        "pending for", "workup for", "work-up for", "preop clearance for")]
    # "feasible for lobectomy", "BCS feasible - favorable ratio": possible, not done
    rules += [ConTextRule("feasible", "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=5,
                          on_modifies=lambda target, modifier, between: target.start >= modifier.end or
                          between is None or sum(t.i < modifier.start for t in between) <= 2)]
    # "Chemoradiation is therefore NOT the pathway": the care ruled out for this patient
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=6, allowed_types=set(CARE))
              for c in ("not the pathway", "not the plan", "not the approach", "not the treatment",
                        "not the way forward", "not the recommended option", "not the preferred option",
                        "not the right treatment", "not the right approach")]
    # a wish is not the care ("Pt wished to proceed w/ RT meanwhile"); care put on hold is not given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("wished to", "wishes to", "wish to", "would like to", "wants to", "wanted to")]
    # paperwork for care is not the care: "PA for durvalumab approved 7/31", "funding approved for T-DM1"
    rules += [ConTextRule("authorization_for", "PLANNED", direction="FORWARD", max_scope=3, allowed_types=set(CARE), pattern=[
        {"LOWER": {"IN": ["prior", "insurance", "insurer", "payer"]}, "OP": "?"},
        {"LOWER": {"IN": ["authorization", "authorisation", "auth", "pa", "approval", "funding", "pre-authorization",
                          "preauthorization", "pre-authorisation", "preauth", "pre-auth"]}},
        {"LOWER": {"IN": ["approved", "granted", "submitted", "requested", "obtained", "received", "pending"]}, "OP": "?"},
        {"LOWER": {"IN": ["for", "of"]}}])]
    # consent is to care still to come: "Pt understands and is willing to have chemotherapy"
    # ("amenable to" alone is feasibility, above: "tumor amenable to lumpectomy"; "amenable to undergo" is consent)
    rules += [ConTextRule("consents_to", "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE), pattern=[
        {"LOWER": {"IN": ["willing", "agreeable", "keen", "consents", "consented", "agrees"]}},
        {"LOWER": "to"}, {"LOWER": {"IN": ["have", "undergo", "start", "proceed", "receive", "try", "go"]}, "OP": "?"},
        {"LOWER": {"IN": ["with", "ahead"]}, "OP": "?"}])]
    rules += [ConTextRule("amenable_to_undergo", "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE),
                          pattern=[{"LOWER": "amenable"}, {"LOWER": "to"},
                                   {"LOWER": {"IN": ["have", "undergo", "start", "proceed", "receive", "try", "go"]}},
                                   {"LOWER": {"IN": ["with", "ahead"]}, "OP": "?"}])]
    # "colonic stent as bridge to palliative chemo", "bridging to surgery": the care bridged to is to come
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("bridge to", "as bridge to", "as a bridge to", "bridging to", "as bridging to")]
    # "durvalumab 1500 mg q4w x12 mo - consented today", "Lobectomy: consent signed": consent written after the
    # care it is for, which is still to come
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=8, allowed_types=set(CARE), on_modifies=same_clause)
              for c in ("consented today", "consented", "consent obtained", "consent signed", "consent taken")]
    # "proceeded to ALND as consented": the consent given before, not care still to come
    rules += [ConTextRule(c, "PSEUDO", direction="PSEUDO")
              for c in ("as consented", "as previously consented", "as per consent", "as discussed and consented")]
    # "consented for FOLFOX + panitumumab q2w", "consent signed for lobectomy": the form comes before the care
    rules += [ConTextRule("consented_for", "PLANNED", direction="FORWARD", max_scope=6, allowed_types=set(CARE), pattern=[
        {"LOWER": {"IN": ["consented", "consent", "consents"]}},
        {"LOWER": {"IN": ["signed", "obtained", "taken", "given"]}, "OP": "?"}, {"LOWER": "for"}])]
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=8, allowed_types=set(CARE))
              for c in ("held for now", "on hold", "is on hold", "put on hold", "placed on hold", "deferred for now",
                        "on hold for now", "held at present")]
    # a question about a treatment is not the treatment ("pt asked about osimertinib")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4)
              for c in ("asked about", "asks about", "inquired about", "inquires about", "questions about",
                        "question about", "curious about", "read about", "heard about", "asks when",
                        "asked when", "asking when", "asks whether", "asked whether", "asking whether",
                        "asks if", "asked if", "asking about", "asked again about", "asks again about",
                        "heard nothing about", "heard nothing regarding", "heard nothing re", "not heard about",
                        "has not heard about", "hasn't heard about", "no news about", "no word about")]
    # "Pt asked re starting pembrolizumab now given PD-L1 70%" (care only: "Asked re breast ca meds" is the
    # clinician's question, and the cancer is no less real)
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("asked re", "asks re", "asking re", "asked regarding", "asks regarding", "enquired about",
                        "enquires about", "enquired re")]
    # "asked again about chemo - still not interested": care the patient does not want
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BACKWARD", max_scope=8)
              for c in ("not interested", "remains uninterested", "uninterested")]
    # "Pt still not interested in tamoxifen" (either side: the longer phrase hides "not interested in")
    rules += [ConTextRule(c, "NEGATED_EXISTENCE", direction="BIDIRECTIONAL", max_scope=8, allowed_types=set(CARE))
              for c in ("still not interested", "still not interested in")]
    # a call's topic and a talk of benefit are not care given ("Pt called re: chemo start", "benefit falls
    # when adjuvant chemo starts > 12 wks after surgery")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4)
              for c in ("regarding", "benefit", "benefits", "benefit of", "benefit from", "benefits of")]
    # "Seen re adjuvant endocrine therapy", "Pt rang re chemo start": care the visit or call is about (a
    # symptom it is about is the patient's: "Pt called re hot flashes")
    rules += [ConTextRule(f"{v} re", "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types=set(CARE))
              for v in ("seen", "here", "called", "phoned", "rang", "visit", "attends", "attended", "f/u",
                        "follow-up", "consult", "call", "telephoned")]
    # "pembrolizumab monotherapy or carboplatin/pemetrexed/pembrolizumab; patient to choose at clinic": the
    # options of a choice still open, over the semicolon that closes the list
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=28, allowed_types=set(CARE),
                          on_modifies=inside_parenthesis)
              for c in ("patient to choose", "pt to choose", "patient to decide", "pt to decide", "to choose between",
                        "patient will decide", "pt will decide", "patient will choose", "pt will choose",
                        "decision pending", "choice pending")]
    # (a letter's "Re:" line is its topic to the line's end; "referral re: RT" is a referral, planned)
    rules += [ConTextRule("re:", "HYPOTHETICAL", direction="FORWARD", max_scope=None, allowed_types=set(CARE),
                          on_modifies=lambda target, modifier, between: not _after_referral(modifier) and (
                              _opens_line(modifier) or between is None or len(between) <= 4))]
    # what the guideline says in general is not care given ("Whole-breast RT after BCS is standard")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=8)
              for c in ("not routinely given", "is not routinely given", "not routinely recommended",
                        "is not routinely recommended", "not routinely offered", "is not routinely offered",
                        "is standard", "is the standard", "is standard of care", "are standard",
                        "is standard practice", "is generally recommended", "is usually recommended",
                        # a comparison of therapies teaches what works ("IO is less effective and raises
                        # pneumonitis risk"), it gives none
                        "is less effective", "are less effective", "is more effective", "are more effective",
                        "is less active", "is more active", "is inferior", "is superior", "works less well",
                        "is less beneficial", "is of less benefit", "is of little benefit")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("standard is", "standard of care is", "the standard would be", "standard would be",
                        "standard of care:", "standard approach:", "standard approach is")]
    # the stage or marker a rule is written for is no finding ("adjuvant chemo is standard for stage
    # II-IIIA and not for IA", "reserved for EGFR-mutant disease")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Stage", "Biomarker"})
              for c in ("standard for", "is standard for", "is the standard for", "is standard of care for",
                        "are standard for", "is indicated for", "indicated for", "recommended for", "reserved for", "approved for",
                        "given in", "offered in", "used in",
                        "benefit in", "only for", "not for", "is for", "are for", "criteria for", "eligible if")]
    # a comparison of behaviour names another phenotype, not this tumour's ("ER-low behaves like TNBC",
    # "clinical behaviour may resemble ER negative disease")
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=4, allowed_types={"Stage", "Biomarker"})
              for c in ("behaves like", "behave like", "behaving like", "behaves as", "resemble", "resembles",
                        "resembling", "similar to", "akin to", "mimics", "mimic", "mimicking", "comparable to",
                        "like that of")]
    # "triple-negative criteria not met", "HER2-positive criteria": a phenotype named as a rule's condition
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=2, allowed_types={"Stage", "Biomarker"})
              for c in ("criteria", "criterion", "testing criteria", "criteria not met", "criteria met")]
    # conditions: "UNLESS dMMR, in which case PD-1 blockade (dostarlimab) would be preferred"
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6) for c in ("unless",)]
    rules += [ConTextRule(c, "OPTION", direction="FORWARD", max_scope=None) for c in ("in which case",)]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=6)
              for c in ("would be preferred", "would be favored", "would be recommended", "would be used")]
    rules += [ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=8)
              for c in ("to start", "to begin", "to be started", "to commence", "to be scheduled", "starting next",
                        "due to start")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=None)
              for c in ("depends on", "depending on", "plan depends on", "if amplified", "if positive", "if negative",
                        "if not", "if low", "if high", "contingent on")]
    # "Then med onc for adj chemo as per MDM", "-> rad onc for PMRT": sent on to a service for care to come
    rules += [ConTextRule("<to> <service> for", "PLANNED", direction="FORWARD", max_scope=6, pattern=[
        {"LOWER": {"IN": ["then", "to", "->", "→", "refer", "re-refer", "back", "onward", "onwards"]}},
        {"LOWER": {"IN": ["med", "medical", "rad", "radiation", "clinical", "surgical", "thoracic", "colorectal",
                          "breast"]}, "OP": "?"},
        # (not "surgery": "was taken to surgery for a right hemicolectomy" is the operation done)
        {"LOWER": {"IN": ["onc", "oncology", "oncologist", "onc.", "medonc", "radonc"]}},
        {"LOWER": "for"}])]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=6)
              for c in ("referral placed for", "referral made for", "referral sent for", "consult placed for",
                        "referred to rad onc for", "sim for", "simulation for", "scheduled for")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=3)
              for c in ("would be indicated", "would be considered", "if indicated")]
    # "RT if needed", "if needed, re-excision"; "progression would prompt a switch": both ways
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=6)
              for c in ("if needed", "would prompt")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("would trigger", "would warrant", "would lead to", "would favor", "would favour",
                        # a surgeon's or oncologist's conditional plan: "would do lumpectomy + SLNB after neoadj."
                        "would do", "would perform", "would offer", "would suggest", "would consider",
                        "would proceed with", "would go with", "would opt for", "would then do")]
    # "Start alectinib 600 mg BID -- first dose taken in clinic today": begun, not only ordered
    # ("alectinib (Alecensa) 600 mg BD - PBS authority approved; first dose taken in clinic today": the first
    # dose is the line's drug's, past a semicolon; written with its day, the longer cue outranks "taken in
    # clinic today" below, which keeps to its clause)
    first_dose = ("first dose taken", "first dose given", "first dose administered", "first dose was given",
                  "first dose was taken", "1st dose taken", "1st dose given")
    rules += [ConTextRule(c, "ONGOING", direction="BACKWARD", max_scope=18, allowed_types={"Medication"},
                          on_modifies=inside_parenthesis)
              for c in (*first_dose, *(f"{c} {when}" for c in first_dose
                                       for when in ("today", "in clinic", "in clinic today", "this morning")))]
    # "- Pegfilgrastim on-body injector applied today", "dexamethasone 8 mg BID x3d (started yesterday)": in a
    # plan section, care already given
    # ("Whole-breast RT after paclitaxel - referral to Radiation Oncology placed today": what was placed is the
    # referral, not the radiotherapy)
    rules += [ConTextRule(c, "ONGOING", direction="BACKWARD", max_scope=10, allowed_types=set(CARE),
                          on_modifies=_both(_both(inside_parenthesis, same_clause), no_paperwork_between))
              for c in (f"{verb} {when}" for verb in ("given", "applied", "administered", "started", "taken", "done",
                                                      "performed", "inserted", "placed")
                        for when in ("today", "yesterday", "this morning", "in clinic", "in clinic today"))]
    # "2. Pleural effusion: indwelling pleural catheter placed 10.01.", "- port inserted 12/01/2025": in a plan
    # section, an operation or test the note dates as done
    rules += [ConTextRule("<done> <date>", "HISTORICAL", direction="BACKWARD", max_scope=8,
                          allowed_types={"Procedure", "Test"},
                          pattern=[{"LOWER": {"IN": ["placed", "inserted", "sited", "performed", "done", "completed"]}},
                                   {"LOWER": "on", "OP": "?"},
                                   {"TEXT": {"REGEX": r"^(?:\d{1,2}[/.]\d{1,2}(?:[/.](?:\d{2}|\d{4}))?\.?|\d{4}-\d{2}-\d{2})$"}}])]
    # "Proceed w/ C5 today: oxaliplatin ...", "Denosumab 120 mg SC today", "prednisolone 60 mg OD from today":
    # a drug the visit gives
    rules += [ConTextRule("today:", "ONGOING", direction="FORWARD", max_scope=16, allowed_types={"Medication"},
                          pattern=[{"LOWER": "today"},
                                   {"TEXT": {"REGEX": r"^\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?$"}, "OP": "?"},
                                   {"LOWER": {"IN": [":", "-", "("]}}],
                          on_modifies=lambda target, modifier, between: _gives_today(modifier))]
    # a pre-treatment review's "Proceed C3 TCHP at full dose: docetaxel ...": the cycle the visit gives
    rules += [ConTextRule("proceed <cycle>", "ONGOING", direction="FORWARD", max_scope=30, allowed_types={"Medication"},
                          pattern=[{"LOWER": {"IN": ["proceed", "proceeding", "proceeded"]}},
                                   {"LOWER": {"IN": ["with", "w/", "to"]}, "OP": "?"},
                                   {"LOWER": {"REGEX": r"^c\d{1,2}(?:d\d{1,2})?$"}}])]
    def _given_today(target, modifier, between) -> bool:
        """Given at this visit: no future word before the drug, none between it and "today"."""
        return not _FUTURE_BEFORE.search(target.doc.text[max(0, target.start_char - 30):target.start_char]) and (
            between is None or not re.search(
                r"\b(?:will|next|due|until|by|before|after|tomorrow|if|book\w*|schedul\w*)\b|[;.]", between.text, re.I))

    rules += [ConTextRule("today", "ONGOING", direction="BACKWARD", max_scope=10, allowed_types={"Medication"},
                          on_modifies=_given_today)]
    # "start carboplatin + pemetrexed + pembrolizumab TODAY (C1D1)": the cycle named after the day is given too
    rules += [ConTextRule("today (<cycle>)", "ONGOING", direction="BACKWARD", max_scope=16, allowed_types={"Medication"},
                          on_modifies=_given_today,
                          pattern=[{"LOWER": "today"}, {"TEXT": "("}, {"LOWER": {"REGEX": r"^c\d{1,2}(?:d\d{1,2})?$"}},
                                   {"TEXT": ")"}])]
    # "ALK+ NSCLC on alectinib", "mCRPC progressing on enzalutamide", "already on pantoprazole": taken now
    # (not "start on", "switch on", "will be on": care to come)
    # (a therapy too: "HIV on ART", "prostate ca on ADT", "OSA on CPAP"; not an operation's specimen, "ISH on
    # excision", nor the days of a course, "capecitabine on RT days")
    rules += [ConTextRule("on", "ONGOING", direction="FORWARD", max_scope=1, allowed_types={"Medication", "Procedure"},
                          on_modifies=lambda target, modifier, between: _on_means_taking(modifier) and (
                              target.label_ == "Medication" or _therapy_taken(target)))]
    # "HTN on Tab. Losartan 50 mg OD", "on inj. insulin": the same, past the prescription's form
    rules += [ConTextRule("on_form", "ONGOING", direction="FORWARD", max_scope=1, allowed_types={"Medication"},
                          pattern=[{"LOWER": "on"}, {"LOWER": {"IN": ["tab", "tab.", "tabs", "tabs.", "inj", "inj.", "cap",
                                                                      "cap.", "caps", "caps."]}},
                                   {"ORTH": ".", "OP": "?"}],
                          on_modifies=lambda target, modifier, between: _on_means_taking(modifier))]
    # "MBC on 1L CDK4/6i + AI": the same, past the line of therapy
    rules += [ConTextRule("on_line", "ONGOING", direction="FORWARD", max_scope=1, allowed_types={"Medication"},
                          pattern=[{"LOWER": "on"}, {"LOWER": {"REGEX": r"^(?:[1-4]l|(?:first|second|third)-line)$"}}],
                          on_modifies=lambda target, modifier, between: _on_means_taking(modifier))]
    rules += [ConTextRule(c, "ONGOING", direction="FORWARD", max_scope=4, allowed_types={"Medication"})
              for c in ("progressing on", "progression on", "progressive disease on", "pd on", "already on",
                        "already taking")]
    # a nursing assessment's "using emollients", "loperamide PRN effective": the drugs taken now
    rules += [ConTextRule(c, "ONGOING", direction="FORWARD", max_scope=3, allowed_types={"Medication"})
              for c in ("using", "uses", "taking", "is taking", "is using")]
    rules += [ConTextRule(c, "ONGOING", direction="BACKWARD", max_scope=3, allowed_types={"Medication"})
              for c in ("effective", "prn effective", "is effective", "helps", "helping", "is helping", "working")]
    # (not to care named as the time of the continuing: "continue anastrozole during RT" says nothing of the RT)
    rules += [ConTextRule(c, "ONGOING", direction="FORWARD", max_scope=6, on_modifies=_not_a_time_of)
              for c in ("continue", "continues", "continuing", "cont", "cont.", "cont'd", "contd", "continued on", "remains on", "remain on", "still on",
                        "currently on", "currently taking", "tolerating", "maintained on", "maintenance",
                        # "SD on 1L letrozole + palbociclib", "continued PR on chemo-IO": the response to care given now
                        "sd on", "pr on", "cr on", "stable on", "stable disease on", "partial response on",
                        "responding on", "responding to", "response on", "ned on", "doing well on", "while on")]
    # "Thoracic surgeon considers disease technically resectable (RUL lobectomy + MLND)": the operation a
    # judgement of operability names in its brackets is one that could be done
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=8, allowed_types={"Procedure"},
                          on_modifies=lambda target, modifier, between: len(between) > 0 and between[0].text == "("
                          and not any(t.text == ")" for t in between))
              for c in ("resectable", "operable", "unresectable", "inoperable", "amenable to resection")]
    # "Adjuvant chemo was permitted in CheckMate 816": what a protocol allows, not what was given
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("was permitted", "is permitted", "were permitted", "are permitted", "was allowed", "is allowed",
                        "were allowed", "are allowed")]
    # "T-DM1 may continue concurrently (with RT)", "she will continue trastuzumab": the drug given now goes on
    # (either side: as one phrase, these take the place of the forward "continue")
    rules += [ConTextRule(c, "ONGOING", direction="BIDIRECTIONAL", max_scope=6, allowed_types={"Medication"},
                          on_modifies=_not_a_time_of)
              for c in ("may continue", "can continue", "will continue", "should continue", "to continue")]
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=6)
              for c in ("is recommended", "was recommended", "are recommended",
                        "to follow", "is pending", "pending", "to be arranged",
                        # "Stage IIIB - chemotherapy indicated", "adjuvant chemo warranted": what the care
                        # calls for, not what was given
                        "indicated", "is indicated", "are indicated", "warranted", "is warranted",
                        "would be indicated", "would be recommended", "would be warranted")]
    # "MRI brain not booked yet (awaiting PET first)": care waited for is still to come (not "awaiting PET
    # report": the scan was done, its report is awaited)
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE),
                          on_modifies=_not_its_result)
              for c in ("awaiting", "awaits", "await", "waiting for", "still awaiting", "waiting on", "awaiting a",
                        "awaiting the", "awaiting his", "awaiting her")]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=5, allowed_types=set(CARE))
              for c in ("for later", "for future", "for subsequent", "in preparation for", "in anticipation of",
                        "ahead of", "in advance of")]
    rules += [ConTextRule(c, "PLANNED", direction="FORWARD", max_scope=8)
              for c in ("to be covered by", "to be treated with", "to be treated by", "to be followed by",
                        "to be managed with", "to be given", "to be offered", "to be started on", "to be started",
                        "to be commenced on", "to be done", "to be performed", "to be sent", "to be obtained", "will be done",
                        "will be performed", "will be sent")]
    # "RT start planned early June": one cue (the bare "start" would cut the scope of "planned": medspaCy
    # limits a cue's reach at another cue of its category)
    rules += [ConTextRule(c, "PLANNED", direction="BACKWARD", max_scope=4, allowed_types=set(CARE))
              for c in ("start planned", "start scheduled", "start booked", "start expected", "start due",
                        "start date", "start date planned", "starting date", "commencement planned")]
    # (not a course's planned length: "Alectinib 600 mg BID started 8/19/25 - planned 2 yrs")
    rules += [_limited(ConTextRule(c, "PLANNED", direction="BIDIRECTIONAL", max_scope=6),
                       lambda target, modifier, between: not _names_duration(modifier))
              for c in ("planned", "scheduled", "ordered",
                        # "incomplete response, TME advised": the recommendation, not the operation
                        "advised", "is advised", "was advised", "suggested", "proposed")]
    # hedged and contingent care: an option kept for later, one that may be considered, a decision not
    # made yet; counselling about risks names what the patient does not have
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=6)
              for c in ("suspected", "suspect", "presumed", "probable")]
    # "pMMR; low probability of MSI-H / Lynch": an estimate, not a finding
    rules += [ConTextRule(c, "POSSIBLE_EXISTENCE", direction="FORWARD", max_scope=4)
              for c in ("low probability of", "low likelihood of", "high probability of", "high likelihood of",
                        "probability of", "likelihood of", "low suspicion for", "low suspicion of",
                        "low index of suspicion for", "high suspicion for", "high suspicion of",
                        "high index of suspicion for", "low pretest probability of", "pretest probability of")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BIDIRECTIONAL", max_scope=6)
              for c in ("reserved for", "kept in reserve", "held in reserve", "held for later", "kept for later",
                        "saved for later", "held for a later", "kept for a later", "saved for a later",
                        "held for second line", "held for 2l", "kept for second line",
                        # "Sotorasib/adagrasib kept for 2nd line"
                        *(f"{verb} for {line}" for verb in ("kept", "held", "reserved", "saved")
                          for line in ("2nd line", "2nd-line", "second-line", "later line", "later lines",
                                       "a later line", "subsequent line", "subsequent lines")))]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=5)
              for c in ("may be considered", "can be considered", "could be considered", "to be considered",
                        "to be decided", "to be determined", "may be an option", "remains an option")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=6)
              for c in ("may use", "could use", "will discuss", "to discuss", "hold for", "hold if")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="FORWARD", max_scope=12)
              for c in ("counseled re", "counselled re", "risks reviewed", "reviewed risks",
                        "side effects reviewed", "toxicities reviewed", "toxicities include", "explained that",
                        "explained the", "explained why", "explained to pt that", "explained to patient that")]
    rules += [ConTextRule(c, "HYPOTHETICAL", direction="BACKWARD", max_scope=8)
              for c in ("could be harmful", "may be harmful", "would be harmful", "is contraindicated",
                        "are contraindicated", "would be contraindicated")]
    return [with_clause_limit(r) for r in one_owner_per_phrase(with_contractions(rules))]


_NOT_AFTER = re.compile(r"\b(is|are|was|were|do|does|did|has|have|had|could|would|should|need)\s+not\b", re.I)


def with_contractions(rules: list) -> list:
    """Each literal cue written with "was not", "did not", "is not" ... also as its contraction ("RT
    wasn't needed", "she didn’t attend"; the tokenizer splits "wasn't" into "was" + "n't", so the full
    phrase never matches it), straight and curly apostrophe. The written rule comes first and so owns a
    phrase written both ways. O(rules)."""
    extra = [rule_like(r, _NOT_AFTER.sub(lambda m: f"{m.group(1)}n{apostrophe}t", r.literal))
             for r in rules if not isinstance(r.pattern, list) and _NOT_AFTER.search(r.literal)
             for apostrophe in ("'", "’")]
    return rules + extra


def one_owner_per_phrase(rules: list) -> list:
    """One rule per literal phrase: its first definition, reaching as far as the widest rule of the same
    category and direction written for it later. With two rules for one phrase the matcher kept one of
    them by rule-id order, so adding any unrelated rule could flip which ("Risks reviewed: ...,
    pneumonitis" lost its 24-word reach to a 12-word twin). Token-pattern rules are kept as they are.
    O(rules)."""

    first: dict[str, int] = {}
    widest: dict[tuple, int | None] = {}
    for r in rules:
        if isinstance(r.pattern, list):
            continue
        key = (r.literal.lower(), r.category, r.direction)
        old = widest.get(key, 0)
        widest[key] = None if old is None or r.max_scope is None else max(old, r.max_scope)
    out = []
    for i, r in enumerate(rules):
        if isinstance(r.pattern, list):
            out.append(r)
            continue
        phrase = r.literal.lower()
        if first.setdefault(phrase, i) != i:
            continue
        scope = widest[(phrase, r.category, r.direction)]
        out.append(r if scope == r.max_scope else rule_like(r, r.literal, pattern=r.pattern, max_scope=scope))
    return out


def _names_more(target, modifier) -> bool:
    """The words between care and a cue after it only say more of the care ("MRI abdomen with
    hepatobiliary contrast recommended"), not "FOLFOX given as recommended": a short run of no verbs."""
    between = target.doc[target.end:modifier.start]
    return len(between) <= 4 and not any(t.pos_ in ("VERB", "AUX") or t.lower_ in ("as", "per", "given", "was", "were")
                                         or t.is_punct for t in between)


#: words between a booking and later care that make the care its landmark, not its object ("rad onc consult
#: booked 7/8 after last paclitaxel", "she was booked straight into chemo" — the course itself)
_NOT_BOOKED = frozenset({"after", "before", "following", "since", "post", "into", "until", "once", "when"})


def _booked_reach(target, modifier, span_between) -> bool:
    """A booking reaches the care right after it: "-> booked lap ULAR/TME + loop ileostomy 03/07/25",
    "Booked for L wide local excision", with no comma, date or landmark word between. O(span)."""
    return not any(t.text in ",;:." or any(ch.isdigit() for ch in t.text) or t.lower_ in _NOT_BOOKED
                   for t in modifier.doc[modifier.end:target.start])


def same_clause(target, modifier, span_between) -> bool:
    """A cue written after care reaches back only within its clause: "core bx LLL; EBUS not needed"
    does not negate the biopsy. (Forward cues go on across semicolons: "Options: (1) ...; (2) ...".)"""
    if span_between is None:
        return True
    # medspaCy's span between a target and a cue after it runs to the cue's end: the cue is not between
    between = span_between.doc[span_between.start:modifier.start] if span_between.start <= modifier.start < \
        span_between.end else span_between
    return not (";" in between.text or _BUT_NEW_SUBJECT.search(between.text) or _LIST_NUMBER.search(between.text)
                or _DASH_NEW_SUBJECT.search(between.text) or _CONSEQUENCE.search(between.text))


# "EGFR wild-type, ALK negative, therefore durvalumab is an option": what follows is concluded from what
# came before, so a cue there is not about it
# (a new clause: "biopsy therefore not performed" is one clause)
_CONSEQUENCE = re.compile(r"[,;]\s*(?:and\s+)?(?:therefore|hence|thus|consequently|accordingly)\b", re.I)


# "2. Prolonged air leak, resolved 3. COPD, mild": a problem list run into one sentence, item by item
_LIST_NUMBER = re.compile(r"(?<![\w.,/])\d{1,2}[.)](?=\s+[A-Za-z]|\s*$)")
_DASH_NEW_SUBJECT = re.compile(r"(?:^|\s)" + DASH_NEW_SUBJECT, re.I)  # (the span between starts at the dash)
# "continue zoledronic acid, but next dose deferred": after "but", a new subject takes the cue; "T-DM1
# discussed but (it was) never ordered" keeps it
_BUT_NEW_SUBJECT = re.compile(r"\bbut\s+(?!(?:(?:it|this|that|they|these|she|he|was|were|is|are|has|have|had|been|then|"
                              r"later|subsequently|ultimately|eventually|not|never|so\s+far|yet)\b\s*)*$)\S", re.I)


CARE = frozenset({"Medication", "Procedure", "Test"})
_ONSET = frozenset({"started", "starting", "start", "began", "begun", "commenced", "initiated", "since", "onset"})


def _no_onset(target, modifier, between) -> bool:
    """An ``on_modifies`` check: no word of onset from three words before the mention or the cue to the end
    of both ("started letrozole 2 months ago" tells when the drug began, not that it ended)."""
    lo, hi = min(target.start, modifier.start), max(target.end, modifier.end)
    return not any(t.lower_ in _ONSET for t in target.doc[max(0, lo - 3):hi])
# "No chemo given before or during RT": care named as the time of another statement is that statement's
# time point, not what its negation denies
_TIME_POINT = re.compile(r"\b(?:before|during|after|since|following|until|throughout|prior\s+to|post)[\s-]+"
                         r"(?:the\s+|her\s+|his\s+|their\s+)?$", re.I)


# a new statement starts: medspaCy's TERMINATE cues miss it when a scope lies inside the sentence (its
# tuple_overlaps does not see containment), so the cues that need it say it here
_NEW_STATEMENT = re.compile(r"\b(?:who|which|but|presented with|presents with|presenting with)\b", re.I)


def reach(back: int, commas: bool = False, care_only: bool = False, not_back: tuple[str, ...] = ()):
    """An ``on_modifies`` check: the cue reaches back only ``back`` words, within its clause (and not
    over a comma unless ``commas``) and, with ``care_only``, only to care ("bevacizumab if mutated",
    "chemo (RAPIDO) discussed"; not "Completed AC x4, discussed next steps", not "nausea if he
    exerts himself"); ``not_back``: labels it never reaches back to ("IDC s/p lumpectomy": the cancer is
    not over); forward as far as its scope, up to a new statement ("s/p pacemaker insertion who
    presented with numbness")."""
    def check(target, modifier, span_between) -> bool:
        if span_between is None or target.start >= modifier.end:
            return same_clause(target, modifier, span_between) and not (
                span_between is not None and _NEW_STATEMENT.search(span_between.text))
        # ("if" never reaches past a bracket: "durvalumab (Imfinzi) x 12 mo if no progression")
        brackets_skipped = modifier.doc[modifier.start:modifier.end].text.lower() != "if"
        return ((_words_outside_brackets(span_between, modifier) if brackets_skipped else len(span_between)) <= back
                and (commas or "," not in span_between.text)
                and (not care_only or target.label_ in CARE) and target.label_ not in not_back
                and same_clause(target, modifier, span_between) and _out_of_parenthesis_to_head(target, modifier))
    return check


_AFTER_RESTATED = {"also", "was", "were", "is", "are", "been", "has", "have", "to", "be"}


def _words_outside_brackets(span, modifier) -> int:
    """The words of ``span`` (care to its cue), a bracket that restates the care's name right before the cue not
    counted: "Stereotactic radiotherapy (SBRT) discussed", "nivolumab + ipilimumab (CheckMate 8HW) also
    discussed" (only "also", "was" ... between the bracket and the cue, two words at most before it). A bracket
    with other words after it ("pemetrexed (FLAURA2 approach) - discussed vs", "restage (CT + MRI) and
    re-discuss") or further from the care counts. O(len(span))."""
    toks = [t.text for t in span if t.i < modifier.start]
    if ")" not in toks:
        return len(span)
    close = len(toks) - 1 - toks[::-1].index(")")
    if any(t.lower() not in _AFTER_RESTATED for t in toks[close + 1:]) or "(" not in toks[:close]:
        return len(span)
    opened = close - 1 - toks[:close][::-1].index("(")
    if opened > 2:  # "osimertinib 80 mg once daily for 3 years (ADAURA) offered": the bracket names no care
        return len(span)
    return len(span) - (close - opened + 1)


def _out_of_parenthesis_to_head(target, modifier) -> bool:
    """A cue inside a parenthesis reaches back out of it only to the words right before it: "RT after chemo
    (if given)" makes the chemotherapy conditional, not the radiotherapy."""
    doc = modifier.doc
    before = doc.text[target.end_char:doc[modifier.start].idx]
    opened = before.rfind("(")
    if opened < 0 or before.count("(") <= before.count(")"):
        return True
    return not before[:opened].strip()


def hyphen_joined_only(target, modifier, span_between) -> bool:
    """A cue joined to the next word by a hyphen modifies that word only: "post-mastectomy radiotherapy" names
    the radiotherapy by the surgery before it, and says nothing of whether the radiotherapy was given."""
    doc = modifier.doc
    if modifier.end >= len(doc) or doc[modifier.end].text != "-" or doc[modifier.end - 1].whitespace_:
        return True
    return target.start <= modifier.end + 1


_GOES_ON_TO_RESULT = re.compile(r"^[^;.]*\b(?:was|were|is|showed|shows|revealed|demonstrated|confirmed|normal|"
                                r"unremarkable|negative|positive|done|performed)\b", re.I)


_CLAUSE_RESULT = re.compile(r"^[^.;\n]*?\b(?:was|were|is|are|showed|shows|revealed|came\s+back|normal|negative|"
                            r"unremarkable|stable|clear|checked|done|performed)\b", re.I)


_DATED_LINE = re.compile(r"\s*\(?\d{1,2}[/.-]\d{1,4}(?:[/.-]\d{2,4})?\)?\s*:\s*\w")  # "MRI 12/2024: 2.1 cm ..."


def _no_result_in_clause(target, modifier, span_between) -> bool:
    """"Annual mammogram was normal", "CEA was checked monthly": the clause reports a test done, whatever
    its schedule."""
    doc = target.doc
    after = doc.text[doc[target.end - 1].idx + len(doc[target.end - 1]):]
    return not (_CLAUSE_RESULT.match(after) or _DATED_LINE.match(after))


def _no_result_after(target, modifier, span_between) -> bool:
    """"Echo requested by cardiology was normal": a request whose result the clause goes on to give was done."""
    doc = modifier.doc
    return not _GOES_ON_TO_RESULT.match(doc.text[doc[modifier.end - 1].idx + len(doc[modifier.end - 1]):])


def _hyphen_joined_before(modifier) -> bool:
    doc = modifier.doc
    return modifier.start >= 2 and doc[modifier.start - 1].text == "-" and not doc[modifier.start - 2].whitespace_


def _after_referral(modifier) -> bool:
    doc = modifier.doc
    return modifier.start >= 1 and doc[modifier.start - 1].lower_ in ("referral", "referred", "refer", "referrals")


_TEACHING = frozenset({"dosing", "dose", "doses", "use", "usage", "instructions", "schedule", "administration",
                       "technique", "timing", "side", "adherence"})


def _talked_over(target, modifier, between) -> bool:
    """"Reviewed osimertinib ...", "reviewed the role of adjuvant capecitabine": the drug right after the cue
    (not "Reviewed meds: metformin ...", a list; nor "reviewed loperamide dosing", teaching about a drug the
    patient has)."""
    after = target.doc[target.end].lower_ if target.end < len(target.doc) else ""
    return (between is None or all(t.lower_ in ("adjuvant", "the", "option", "of", "role", "risks", "benefits", "and")
                                   for t in between)) and after not in _TEACHING


_PAST = frozenset({"was", "were", "had", "has", "have", "did", "been", "showed", "shown", "confirmed", "revealed",
                   "went", "got", "received", "underwent", "completed", "finished", "started", "stopped"})


def _general_teaching(target, modifier, between) -> bool:
    """What follows the cue, to its clause's end, says nothing happened: no past or perfect verb ("give the
    same survival", "is recommended"; not "she had a mastectomy", "her biopsy showed IDC")."""
    doc = target.doc
    stop = next((t.i for t in doc[modifier.end:] if t.text in (";", ".") or t.lower_ in ("but", "however")), len(doc))
    return not any(t.lower_ in _PAST for t in doc[modifier.end:stop])


def _subject_before_but(target, modifier, between) -> bool:
    """The care is its clause's subject: right before the clause's verb ("osimertinib was flagged", "chemo
    had been planned"), in the cue's sentence with no semicolon between."""
    doc = target.doc
    return (target.end < modifier.start and doc[target.end].lower_ in ("was", "were", "is", "are", "had", "has", "have")
            and ";" not in doc[target.end:modifier.start].text)


# words that make the awaited thing a result ("awaiting biopsy results", "awaiting the final PET report")
_AWAITED_RESULT = frozenset({"result", "results", "report", "reports", "reporting", "read", "reading", "histology",
                            "outcome", "outcomes", "findings", "pathology", "histopathology", "cytology", "formal",
                            "final", "official", "review", "slides"})


def _not_its_result(target, modifier, between) -> bool:
    """The care itself is awaited, not its result ("awaiting PET first"; not "awaiting biopsy results",
    "awaiting the final PET report"): nothing between cue and care names a result, nor does the word after."""
    doc = target.doc
    after = doc[target.end].lower_ if target.end < len(doc) else ""
    return target.start >= modifier.end and after not in _AWAITED_RESULT and not any(
        t.lower_ in _AWAITED_RESULT for t in doc[modifier.end:target.start])


def _opens_statement(target, modifier, between) -> bool:
    """The cue opens its statement and is not "rec'd" (received)."""
    return modifier.start == 0 and (modifier.end >= len(modifier.doc)
                                    or modifier.doc[modifier.end].lower_ not in ("'d", "’d", "d"))


def _week_to_come(target, modifier, between) -> bool:
    """"CT chest next week" (the care right before, three words at most) and "next week for adjuvant chemo,
    then RT" (after it, in its clause, or past a comma into a "then"): not "pemetrexed from next week, with
    B12 and folic acid continued"."""
    if target.start < modifier.start:
        return reach(3, care_only=True)(target, modifier, between)
    toks = list(between or [])
    return all(t.text != "," or (i + 1 < len(toks) and toks[i + 1].lower_ in ("then", "followed"))
               for i, t in enumerate(toks))


def _opens_line(modifier) -> bool:
    """Is the cue the first thing on its line ("Re: Mrs H. - radiotherapy", not "referral re: whole-breast RT")?"""
    doc = modifier.doc
    before = doc.text[:doc[modifier.start].idx]
    return not before.strip() or before.rstrip(" \t").endswith("\n")


_TIME_OF = {"during", "throughout", "until", "till", "through", "after", "post", "following", "before", "beyond"}


def _not_a_time_of(target, modifier, span_between) -> bool:
    """The care is not named as the time of what the cue says ("continue anastrozole during RT")."""
    return not (target.start and target.doc[target.start - 1].lower_ in _TIME_OF and target.start > modifier.end)


_ADVERBS = {"now", "then", "also", "alone", "probably", "likely", "still", "only", "first", "upfront", "today",
            "here", "certainly", "clearly", "definitely", "potentially", "possibly", "instead", "again"}


# "sotorasib is not 1st line - only at progression", "docetaxel reserved for 2L": care kept for a later event
# (not "pembrolizumab until progression": how long care goes on)
_AT_A_LATER_EVENT = re.compile(r"\b(?:at|on|upon)\s+(?:the\s+time\s+of\s+)?(?:further\s+|disease\s+)?"
                               r"(?:progression|relapse|recurrence)\b|\breserved\s+for\b|\b(?:kept|held)\s+in\s+reserve\b",
                               re.I)
# "started docetaxel at progression", "switched to docetaxel on progression in 2023": care told as done
_TOLD_DONE = re.compile(r"\b(?:started|commenced|initiated|began|begun|given|received|switched|changed|had|was|were|"
                        r"stopped|discontinued|ceased|completed|finished)\b",
                        re.I)


_FINDINGS = re.compile(r"\b(?:results?|findings?|outcome|diagnosis|report|histology|pathology|conclusions?|"
                       r"impression|opinion|decision|recommendations?)\b", re.I)


def _no_findings_between(target, modifier, span_between) -> bool:
    """An ``on_modifies`` check: no result, finding or conclusion named from the cue to just after the care (the
    patient told what care found or concluded, "informed about the MDT conclusion", is not told of care to
    come)."""
    doc = modifier.doc
    return not _FINDINGS.search(doc[modifier.end:min(len(doc), target.end + 3)].text)


# "Adjuvant capecitabine for residual disease: discussed, pt does not wish to add it": the label's care is the
# topic, talked over (not "Completed AC x4: discussed next steps", whose verb has an object of its own)
_LABEL_TALKED_OVER = re.compile(r"^[^:;.]{0,60}:\s*(?:discussed|offered|considered|proposed|suggested|explained)\b"
                                r"(?=\s*(?:$|[,;.(\u2013\u2014-]|(?:with|and|at|today|in|by)\b))", re.I)


def _not_told_done(target, modifier, span_between) -> bool:
    """An ``on_modifies`` check: nothing between the cue and the care tells it as done ("Thereafter she received
    PMRT")."""
    doc = modifier.doc
    return not _TOLD_DONE.search(doc[modifier.end:target.end].text)


def _not_told_or_dated(target, modifier, span_between) -> bool:
    """An ``on_modifies`` check: the sentence neither tells the care as done ("Subsequently she received PMRT",
    "... was given") nor dates it ("Subsequently CT 3/2022", read by :func:`ingest.nlp.when.periods`): a history
    goes on, not a plan."""
    sent = modifier.doc.text
    return not (_TOLD_DONE.search(sent) or next(when.periods(sent), None))


def _not_an_agent(target, modifier, span_between) -> bool:
    """An ``on_modifies`` check: the cue is not followed by what did the indicating ("Indicated by symptoms, a CT
    was done" plans nothing)."""
    doc = modifier.doc
    return modifier.end >= len(doc) or doc[modifier.end].lower_ != "by"


def label_talked_over(ent) -> bool:
    """Is care named in a label whose colon is followed by "discussed" (or offered...) with no object, in a
    label that tells no care done? O(clause)."""
    rest = ent.doc.text[ent.end_char:]
    return bool(_LABEL_TALKED_OVER.match(rest)) and not _TOLD_DONE.search(
        ent.doc.text[max(0, ent.start_char - 30):ent.end_char] + rest[:rest.find(":")])


def kept_for_later_event(ent) -> bool:
    """Is care named in a clause that keeps it for a later event, and tells none done? O(clause)."""
    clause = _own_clause(ent)
    return bool(_AT_A_LATER_EVENT.search(clause)) and not _TOLD_DONE.search(clause)


def _adverbs_only_between(target, modifier, span_between) -> bool:
    """The modal follows the care at once or past adverbs only ("WLE now would"), not past a subject
    ("after surgery she would")."""
    return target.end <= modifier.start and all(t.lower_ in _ADVERBS for t in target.doc[target.end:modifier.start])


def _subject_reach(target, modifier, span_between) -> bool:
    """"X cannot be excluded" reaches a diagnosis anywhere in the clause before it ("Primary lung neoplasm
    with hilar nodal spread cannot be excluded"), care only right before it ("osimertinib-related
    pneumonitis cannot be excluded": the drug was given)."""
    return reach(10 if target.label_ in ("Cancer", "Problem") else 3)(target, modifier, span_between)


def _said_complete(modifier) -> bool:
    """"adjuvant chemo complete.", "RT complete (05/2025)": the course is over; not "continue
    pembrolizumab to complete 1 year", "-> complete 1 yr of Herceptin" (what is still to be given)."""
    doc = modifier.doc
    before = doc[modifier.start - 1].lower_ if modifier.start > 0 else ""
    after = doc[modifier.end] if modifier.end < len(doc) else None
    return before not in ("to", "->", "will", "should", "must", "then", "and") and (
        after is None or after.is_punct or bool(re.fullmatch(r"\d{1,4}[/.-]\d{1,4}(?:[/.-]\d{2,4})?", after.text)))


def _names_time_point(target) -> bool:
    """The care in "post-mastectomy", "pre-op": a time point named by care, not care itself."""
    doc = target.doc
    return target.start >= 2 and doc[target.start - 1].text == "-" and doc[target.start - 2].lower_ in ("post", "pre")


def _named_as_before(target) -> bool:
    """"pre-chemo work-up", "pre-op labs": the care names the time before it, so it is still to come.
    (Not its mirror: "post-RT CT in 3 months" in a plan may name radiotherapy not yet given.)"""
    doc = target.doc
    return _names_time_point(target) and doc[target.start - 2].lower_ == "pre" \
        and not doc[target.start - 2].whitespace_ and not doc[target.start - 1].whitespace_


def no_date_between(target, modifier, span_between) -> bool:
    """"since 03/06/2025: oxaliplatin": a "since" followed by a date starts a course, it does not name the
    care after it as a past time point."""
    return span_between is None or not re.search(r"\d", span_between.text)


def inside_parenthesis(target, modifier, span_between) -> bool:
    """A cue and its care stay on their side of a parenthesis: "(2/3 SLN+, no completion ALND) ->
    ddAC x4" does not negate the chemotherapy, "(1 yr from resection) - GI order placed" does not plan
    the resection."""
    if span_between is None:
        return True
    doc = target.doc
    if 0 < target.start and target.end < len(doc) and doc[target.start - 1].text == "(" and doc[target.end].text == ")":
        return True  # "low anterior resection (TME) ... postponed": a name's own abbreviation goes with it
    between = span_between.text
    if target.start < modifier.start:  # a cue after its care: "tamoxifen ... (AI not appropriate yet)" stays inside
        between = between[:max(0, len(between) - len(modifier.text))] if between.endswith(modifier.text) else between
        return between.count("(") <= between.count(")")
    return between.count(")") <= between.count("(")  # entering a parenthesis is fine, leaving one is not


_SINCE = re.compile(r"\bsince\b", re.I)
_FULL_STOP = re.compile(r"[A-Za-z0-9)]\.(?:\s|$)")  # "no LVI. pT1c pN0(sn)": a sentence the splitter left joined ends


def no_arrow(target, modifier, span_between) -> bool:
    """A negation (or a relative) does not cross a "->" of a chronology or a plan, a "since" that names
    a past time point ("no further chemotherapy given since CRT"), or a full stop."""
    return span_between is None or not ("->" in span_between.text or "→" in span_between.text
                                        or _SINCE.search(span_between.text) or _FULL_STOP.search(span_between.text)
                                        or _CHOICE.search(span_between.text))


_PATIENT = re.compile(r"\b(?:patient|pt|herself|himself|her own|his own)\b", re.I)


_ROUTE_WORDS = frozenset({"the", "his", "her", "an", "a", "existing", "end", "loop"})
_ROUTE = re.compile(r"(?:col|ile|jejun|gastr|trache|nephr|ur|cyst)ostomy|\bstoma\b|\bport\b|\bpicc\b", re.I)


_PAPERWORK = re.compile(r"\b(?:referrals?|orders?|requests?|requisitions?|bookings?|appointments?|consults?|"
                        r"applications?|prescriptions?|scripts?)\b", re.I)


def no_paperwork_between(target, modifier, span_between) -> bool:
    """A done cue reaches its care only when no referral, order or booking stands between them: that is
    what the cue is about."""
    return span_between is None or not _PAPERWORK.search(span_between.text)


def patient_not_named(target, modifier, span_between) -> bool:
    """A relative's reach ends where the patient is named: "testing for children; surveillance plan for
    patient - colonoscopy annually" is the patient's colonoscopy."""
    return span_between is None or not _PATIENT.search(span_between.text)


# "pt declined, preferring upfront surgery": what is chosen instead is not what was declined
_CHOICE = re.compile(r"\b(?:preferring|prefers|preferred|prefer|opting|opted|chose|choosing|elected|elects|selected|"
                     r"instead|in\s+favou?r\s+of)\b", re.I)


# "Discussed with pt + daughter: best option tepotinib", "spoke to the patient and her son", "Pt and son
# counselled": a relative taking part in the talk is no experiencer of what is talked about
_PARTY_BEFORE = re.compile(
    r"(?:\b(?:discuss\w*|d/w|spoke|speak\w*|talk\w*|met|meeting|counsell?\w*|explained|informed|reviewed|called|"
    r"phoned|seen|lives|living|accompanied|attend\w*|present)\b(?:\s+\w+){0,2}?\s+(?:with|to|by)\s+(?:the\s+)?"
    r"(?:(?:pt|patient|him|her|them)\s*(?:and|\+|&|/)\s*)?"
    r"|\b(?:pt|patient)\s*(?:and|\+|&|/)\s*)(?:his|her|their|the)?\s*$", re.I)


def relative_not_a_party(target, modifier, span_between) -> bool:
    """A relative's reach is none when the relative is a party to the talk (:data:`_PARTY_BEFORE`)."""
    doc = modifier.doc
    start = modifier.start
    sent_start = doc[start].sent.start if doc.has_annotation("SENT_START") else max(0, start - 12)
    before = doc[max(sent_start, start - 12):start].text
    return not _PARTY_BEFORE.search(before)


def _names_requester(modifier) -> bool:
    """"(requested by cardiology)": a bracket that names who asked for the care it follows, not an order."""
    doc = modifier.doc
    return 0 < modifier.start and doc[modifier.start - 1].text == "(" and modifier.end < len(doc) and \
        doc[modifier.end].lower_ == "by"


_SPANS_OF_TIME = r"weeks?|wks?|months?|mos?|years?|yrs?|y"  # the units a course's length or a time since is written in
_DURATION_AFTER = re.compile(rf"^\s*(?:for\s+)?(?:a\s+)?(?:total\s+of\s+)?(?:\d+(?:\.\d+)?(?:\s*[-–]\s*\d+)?|one|two|three|five|ten)"
                             rf"\s*-?\s*(?:{_SPANS_OF_TIME})\b(?!\s*(?:after|before|post|from|following|pre)\b)", re.I)
_BEGUN = re.compile(r"\b(?:started|began|begun|commenced|initiated)\b", re.I)


def _names_duration(modifier) -> bool:
    """"Alectinib started 8/19/25 - planned 2 yrs": the length a course begun is planned to run, not a plan
    to begin it (not "Surgery planned 2 weeks after RT", nor a course not begun, "letrozole planned for 5 years")."""
    doc = modifier.doc
    return bool(_DURATION_AFTER.match(doc[modifier.end:min(len(doc), modifier.end + 8)].text)) and bool(
        _BEGUN.search(modifier.sent.text if doc.has_annotation("SENT_START") else doc.text))


def _risk_follows(modifier) -> bool:
    """"raises hepatotoxicity risk", "increases the risk of": the verb states a risk (the word itself stays
    free for the risk's own rule: the hepatotoxicity is possible)."""
    doc = modifier.doc
    if modifier.start > 0 and doc[modifier.start - 1].lower_ in ("which", "that", "this", "it"):
        return False  # "She is on letrozole, which raises her fracture risk": the care is hers, the risk its own
    return any(t.lower_ in ("risk", "risks") for t in doc[modifier.end:min(len(doc), modifier.end + 3)])


_TIME_UNIT = re.compile(rf"^(?:\d+|days?|{_SPANS_OF_TIME}|hours?|hrs?|shortly|much|soon)$", re.I)


def _after_a_time(modifier) -> bool:
    """"3 months later", "shortly later": "later" after a span of time dates an event, it does not plan it."""
    return modifier.start > 0 and bool(_TIME_UNIT.match(modifier.doc[modifier.start - 1].text))


def _words_apart(limit: int):
    """An ``on_modifies`` check: the target within ``limit`` words of its cue, as medspaCy's ``max_scope``
    counts them, but the care's own bracketed aside right after its name counting as one word ("Annual
    mammogram (1st post-treatment) scheduled 10/07/2024 at 09:40: NOT PERFORMED")."""
    def check(target, modifier, span_between) -> bool:
        if span_between is None:
            return True
        doc = target.doc
        lo, hi = (target.end, modifier.start) if target.start < modifier.start else (modifier.end, target.start)
        words = max(0, hi - lo)
        if target.start < modifier.start and lo < hi and doc[lo].text == "(":
            close = next((t.i for t in doc[lo:hi] if t.text == ")"), None)
            if close is not None:
                words -= close - lo
        return words < limit  # (medspaCy: a target reaching into the scope by one token is in it)
    return check


def _both(a, b):
    return lambda target, modifier, span_between: a(target, modifier, span_between) and b(target, modifier,
                                                                                         span_between)


_NEW_CLAUSE = re.compile(r"[,;:]|->|→|\s-\s|\bthen\b|\bnow\b", re.I)  # "He received all planned chemo": one clause


def _planned_since(ent, past, mods) -> bool:
    """"Completed RT, plan to start letrozole", "pneumonitis resolved -> plan to start durvalumab": a plan
    cue between a past cue and the care speaks for the care; the past cue is about what came before."""
    end = past.modifier_span[1]
    doc = ent.doc
    return end <= ent.start and any(m.category == "PLANNED" and end <= m.modifier_span[0] and m.modifier_span[1] <= ent.start
                                    and _NEW_CLAUSE.search(doc[end:m.modifier_span[0]].text) for m in mods)


def with_clause_limit(rule):
    """The rule, its reach kept on its side of a parenthesis (:func:`inside_parenthesis`), its backward
    reach (and a negation's either way) stopped at a semicolon (:func:`same_clause`), a negation's or a relative's at an
    arrow (:func:`no_arrow`)."""
    if rule.on_modifies is not None:
        return rule
    checks = [inside_parenthesis]
    # a course's end stays in its clause too: "discontinue oxaliplatin; capecitabine monotherapy for C6-C8"
    if rule.direction in ("BACKWARD", "BIDIRECTIONAL") or rule.category == "HISTORICAL":
        checks.append(same_clause)
    if rule.category in ("NEGATED_EXISTENCE", "FAMILY"):
        checks.append(no_arrow)  # "FDR dx <60 -> colonoscopy now": the arrow's plan is the patient's
        if rule.category == "FAMILY":
            checks.append(patient_not_named)
            checks.append(relative_not_a_party)
        if rule.category == "NEGATED_EXISTENCE" and rule.direction not in ("BACKWARD", "BIDIRECTIONAL"):
            checks.append(same_clause)  # "no distant metastases; CEA 5.8": a negation ends at its clause
    check = checks[0]
    for other in checks[1:]:
        check = _both(check, other)
    rule.on_modifies = check
    return rule


_KIN = re.compile(r"\b(?:mother|father|mom|mum|dad|parents?|sisters?|brothers?|siblings?|aunts?|uncles?|cousins?|"
                  r"daughters?|sons?|children|grand\w*|nieces?|nephews?|twin|maternal|paternal|family|familial|"
                  r"relatives?|fdrs?|fhx|fh|mgm|mgf|pgm|pgf)\b", re.I)


def episodic(concepts: tuple[Concept, ...]) -> bool:
    """Acute or episodic condition (ICD-10-CM), whose past episode is over."""
    return any(c.system == "ICD-10-CM" and _EPISODIC.match(c.code) for c in concepts)


_STATUS_POST = re.compile(r"^(?:s/p|status\s+post)$", re.I)  # "CAD s/p LAD stent, hypothyroidism": of the care only


def _no_bare_comma_back(target, modifier, span_between) -> bool:
    """A cue after its target reaches it only over commas inside brackets ("Biomarker testing (EGFR, ALK)
    not indicated"), not over a list's commas ("26 Gy/5#, 07/04 - 11/04, 6MV, DIBH not required"); the
    parenthesis right after the cue gives its reason ("EBUS not performed (N0 on PET)": the PET was done)."""
    if span_between is None or target.start >= modifier.end:
        doc = modifier.doc
        if target.start < modifier.end or modifier.end >= len(doc) or doc[modifier.end].text != "(":
            return True
        reason = doc[modifier.end:target.start].text
        return reason.count("(") <= reason.count(")")
    # "she chose mastectomy and declined immediate reconstruction": a cue that opens a second verb phrase
    # denies what follows it, not the first verb's object
    doc = modifier.doc
    if modifier.start > 0 and doc[modifier.start - 1].lower_ in ("and", "but") and \
            doc[modifier.start].lower_ in _OBJECT_VERBS and modifier.end < len(doc) and \
            doc[modifier.end].is_alpha and doc[modifier.end].lower_ not in _NOT_AN_OBJECT:
        return False  # ("offered tamoxifen and declined (it) for now": the offer is what was declined)
    return "," not in re.sub(r"\([^()]*\)", "", span_between.text)


_OBJECT_VERBS = frozenset({"declined", "declines", "refused", "refuses", "deferred", "defers"})
_NOT_AN_OBJECT = frozenset({"for", "at", "today", "it", "this", "them", "again", "now", "after", "because", "due",
                            "as", "given", "on", "in", "until", "till", "so", "by", "that", "both", "all"})
_DASH_BREAK = re.compile(r"(?:^|\s)[-–—]\s|:")


def _mod_text(ent, m) -> str:
    return ent.doc[m.modifier_span[0]:m.modifier_span[1]].text


def _cue(ent, mods) -> str | None:
    return " ".join(ent.doc[m.modifier_span[0]:m.modifier_span[1]].text for m in mods) or None


_EARLIER_SPECIMEN = re.compile(r"\b(?:core|biops(?:y|ies)|bx|prior|previous|initial|original|diagnostic|earlier|"
                               r"outside|referring|baseline|pre-?treatment)\b", re.I)


def _earlier_specimen(target, modifier, span_between) -> bool:
    """"discordant with core biopsy (ER 0%)": the comparison names an earlier specimen (not "ER 0% on core,
    discordant with excision ER 40%", where the result after the cue is the newer one)."""
    return bool(_EARLIER_SPECIMEN.search(span_between.text))


#: cues that name the earlier result a biomarker is compared with
COMPARED_WITH = ("discordant with", "concordant with", "in contrast to", "in contrast with", "compared with",
                 "compared to", "in comparison with", "in comparison to", "unlike")
_PERFORMANCE_CODES = frozenset({"89247-1"})  # ECOG performance status score (graphkit's value parser)


def _own_clause(ent) -> str:
    """The text of the entity's clause: its sentence between the semicolons around it."""
    doc = ent.doc
    text = doc.text
    a = text.rfind(";", 0, ent.start_char) + 1
    b = text.find(";", ent.end_char)
    return text[a:b if b >= 0 else len(text)]


def assertion_of(ent, kind: str, concepts: tuple[Concept, ...], section: str | None) -> tuple[str, str | None]:
    """(assertion, the cue that decided it) for a mention given its ConText entity. Precedence: who has
    it (family), then negated > possible > planned > historical > present (guideline section 3)."""
    mods = list(getattr(ent._, "modifiers", ()))
    cats = {m.category for m in mods}
    cue = _cue(ent, mods)
    if section == "Family History" and not ent._.is_family and (
            kind in ("Stage", "Biomarker")
            or kind == "Test" and not _KIN.search(ent.sent.text if ent.sent is not None else ent.doc.text)):
        # a stage or receptor result under FHx is the patient's tumour unless a relative is named; so is a
        # test in a statement that names no relative ("FHx: ... uncle with CRC. Germline panel 02/2025: no
        # pathogenic variants"; a drug there stays the relative's: "Sister -\nEGFR+ ..., on osimertinib")
        section = None
    # "FHx: father - lung ca, died at 70. Brother healthy.\nECOG 1.": a performance status is the patient's
    own = any(c.system == "LOINC" and c.code in _PERFORMANCE_CODES for c in concepts)
    if own and section == "Family History":
        section = None
    if (ent._.is_family or section == "Family History") and not own:
        negated = ent._.is_negated and not _only_result_cues(ent, mods)
        return ("negated" if negated else "family"), cue
    if kind in ("Biomarker", "Stage"):
        if kind == "Biomarker" and _NOT_TESTED.search(_own_clause(ent)):
            return "negated", cue  # ("KRAS G12D mutant; MSS; HER2 not tested yet": the HER2 only)
        if kind == "Stage" and any(m.category == "NEGATED_EXISTENCE" and 0 <= ent.start - m.modifier_span[1] <= 1
                                   for m in mods):
            return "negated", cue  # "NOT stage IV - prior referral dx incorrect" (not "no PMRT - cN0 ...")
        if ent._.is_hypothetical or ent._.is_uncertain or "OPTION" in cats or any(
                ent.doc[m.modifier_span[0]:m.modifier_span[1]].text.lower() in _DOUBT
                and 0 <= m.modifier_span[0] - ent.end <= 2 for m in mods):
            return "possible", cue  # "MSI-H unlikely": a guess, not a result
        if in_decision_branch(ent):
            return "possible", cue or "decision branch"
        if ent.doc.text[:ent.start_char].count('"') % 2 == 1 and '"' in ent.doc.text[ent.end_char:]:
            return "possible", cue  # 'older referrals list "stage IV"', 'still reads "ER+/HER2-neg"': reported
        if kind == "Biomarker" and any(m.category == "HISTORICAL" and _mod_text(ent, m).lower() in COMPARED_WITH
                                       for m in mods):
            return "historical", cue  # "discordant with core biopsy (ER 0%)": the other specimen's, earlier
        return "present", cue
    if (kind in CARE or kind == "Cancer") and in_decision_branch(ent):
        return "possible", cue or "decision branch"
    if ent._.is_negated and not (kind in ("Test", "Procedure") and _only_result_cues(ent, mods)) and not (
            kind in CARE and _TIME_POINT.search(ent.doc.text[max(0, ent.start_char - 30):ent.start_char])) \
            and not _negation_in_condition(ent, mods):
        return "negated", cue
    if ent._.is_negated and _negation_in_condition(ent, mods):
        return "possible", cue  # "if still not tolerated consider tamoxifen": the condition's "not" is not the care's
    if kind in CARE and in_conditional_item(ent):
        return "possible", cue or "if ...:"  # "- If HER2 amplified: neoadjuvant TCHP x 6 -> surgery"
    if ent._.is_hypothetical or ent._.is_uncertain or "OPTION" in cats:
        return "possible", cue
    if kind in ("Medication", "Procedure") and kept_for_later_event(ent):
        return "possible", cue or "at progression"  # "sotorasib is not 1st line - only at progression"
    if kind in ("Medication", "Procedure") and label_talked_over(ent):
        return "possible", cue or ": discussed"  # "Adjuvant capecitabine for residual disease: discussed, ..."
    if _QUERY_BEFORE.search(ent.doc.text[max(0, ent.start_char - 30):ent.start_char]) or _query_parenthesis(ent):
        return "possible", cue or "?"  # "2WW - ?breast ca", "? PE", "(? adjuvant osimertinib / alectinib)"
    if kind in CARE and _NOT_FOR.search(ent.doc.text[max(0, ent.start_char - 12):ent.start_char]):
        return "negated", cue or "not for"  # "Neurosurgical opinion: not for resection": judged unsuitable
    if kind in CARE and _named_as_before(ent):
        return "planned", cue or "pre-"  # "pre-chemo work-up done": the chemotherapy is still to come
    if (kind in CARE or kind == "Cancer") and in_question(ent.doc.text, ent.end_char):
        return "possible", cue or "?"
    if kind == "Test" and "PLANNED" in cats and _DATED_RESULT_AFTER.match(ent.doc.text[ent.end_char:ent.end_char + 40]):
        return "present", cue  # "GP-ordered CT chest (06/01/2025): RUL 36 mm nodule": a dated result line
    past = [m for m in mods if m.category == "HISTORICAL" and not (kind in PLANNED_KINDS and _planned_since(ent, m, mods))
            and not (kind == "Problem" and not episodic(concepts) and _STATUS_POST.match(_mod_text(ent, m)))]
    historical = ent._.is_historical and bool(past)
    weak_history = all(ent.doc[m.modifier_span[0]:m.modifier_span[1]].text.lower() in _WEAK_HISTORY for m in past)
    if kind == "Problem" and _GIVEN_UP.match(ent.text):
        return "historical", cue or ent.text.split("-")[0]  # "Ex-smoker": one term that holds its own cue
    if "PLANNED" in cats and "ONGOING" not in cats and kind in PLANNED_KINDS and (not historical or weak_history):
        return "planned", cue  # "will start letrozole after radiation": the radiation is to come too
    if historical and weak_history and kind in PLANNED_KINDS and "ONGOING" not in cats and (
            section in PLAN_SECTIONS or _FUTURE.search(ent.doc.text[:min(ent.doc[m.modifier_span[0]].idx for m in past)])):
        return "planned", cue  # "- whole-breast RT after paclitaxel" in a plan, "I will see her after surgery": to come
    if historical:
        history_only = all(_HISTORY_WORDS.match(ent.doc[m.modifier_span[0]:m.modifier_span[1]].text.strip())
                           for m in mods if m.category == "HISTORICAL")
        if history_only and kind in ("Problem", "Cancer") and not episodic(concepts):
            return "present", cue  # "history of hypertension": a chronic disease goes on (R7)
        if history_only and kind == "Medication" and "ONGOING" in cats:
            return "present", cue  # "Past history: rheumatoid arthritis on methotrexate": its treatment goes on
        return "historical", cue
    if section in HISTORY_SECTIONS:
        # "Currently on Phesgo to complete 12 months" under "Treatment to date": taken now, whatever its course
        over = kind == "Medication" and "ONGOING" not in cats and (
            _COURSE_GIVEN.search(ent.text) or _COURSE_GIVEN.match(ent.doc.text[ent.end_char:]))
        # (a therapy said to be taken now is not over: "PMH: HIV on ART (TLD)", "prostate ca on ADT")
        done = kind == "Procedure" and "ONGOING" not in cats
        return ("historical" if done or over or episodic(concepts) else "present"), None
    if section in PLAN_SECTIONS and kind in PLANNED_KINDS and "ONGOING" not in cats and not (
            kind == "Test" and _VALUE_AFTER.match(ent.doc.text[ent.end_char:ent.end_char + 25])) and not (
            kind == "Medication" and _MEDICATION_LIST_ITEM.match(ent.doc.text)):
        return "planned", cue
    if section in OPTION_SECTIONS and kind in PLANNED_KINDS and "ONGOING" not in cats:
        return "possible", cue
    return SECTION_ASSERTION.get(section or "", "present"), cue


# "Plan: will e-prescribe osimertinib 80 mg daily today": the prescription is today's, the drug still to come
_FUTURE_BEFORE = re.compile(r"\b(?:will|shall|plan(?:s|ned)?\s+to|going\s+to)\b[^.;:]*$|\b(?:e-?)?prescrib\w*\s*$", re.I)
# "- Meds: warfarin (dose per anticoagulation clinic), metoprolol ...": a plan's line listing what is taken
# (and "Current: goserelin 3.6 mg q4w + exemestane since 15 Sep 2025 - continue": what is taken now)
_MEDICATION_LIST_ITEM = re.compile(r"^\W*(?:(?:(?:home|current|regular|usual|discharge)\s+)?(?:meds|medications)|"
                                   r"current(?:\s+(?:treatment|therapy|rx|regimen|systemic\s+therapy))?)\s*:", re.I)


_GIVING_BEFORE = re.compile(r"^(?:c\d{1,2}(?:d\d{1,2})?|cycle|proceed|proceeding|treat|treatment|given|administered|"
                            r"infusion|infused|dose|chemo)$", re.I)


def _gives_today(modifier) -> bool:
    """"Proceed w/ C5 today:", "C3D1 today -": the visit gives the drugs listed next (not "seen today:")."""
    doc = modifier.doc
    return any(_GIVING_BEFORE.match(t.text) for t in doc[max(0, modifier.start - 3):modifier.start])


_NOT_TAKING_YET = {"start", "starts", "started", "starting", "put", "putting", "switch", "switched", "switching",
                   "change", "changed", "changing", "be", "been", "go", "going", "initiate", "initiated", "begin",
                   "place", "placed", "restart", "resume", "transition", "transitioned", "move", "moved", "keep"}


_OPERATION_WORDS = re.compile(r"ectomy|otomy|ostomy|resection|excision|surgery|operation|biops|specimen|block", re.I)
_COURSE_DAYS = re.compile(r"^\s*(?:days?|fractions?|specimens?|blocks?|samples?)\b", re.I)


def _therapy_taken(target) -> bool:
    """A procedure a patient can be "on": a therapy (ART, ADT, CPAP), not an operation or its specimen, nor the
    days of a course ("on RT days")."""
    doc = target.doc
    return not _OPERATION_WORDS.search(target.text) and not _COURSE_DAYS.match(doc.text[target.end_char:])


_TAKER = {"is", "was", "are", "were", "pt", "patient", "he", "she", "they", "now", "remains", "remained", "stays",
          "who", ",", "(", "-", ":",
          # "HIV well controlled on TLD", "stable on letrozole", "virally suppressed on TLD"
          "controlled", "stable", "suppressed", "maintained"}


def _on_means_taking(modifier) -> bool:
    """"on" before a drug says it is taken now when the patient or a disease comes before it ("ALK+ NSCLC on
    alectinib", "she is on letrozole", "pt on tamoxifen"); not after other words ("decide on durvalumab
    start", "based on", "start on letrozole", "will be on tamoxifen")."""
    doc = modifier.doc
    if modifier.start == 0:
        return True
    prev = doc[modifier.start - 1]
    if prev.lower_ in _NOT_TAKING_YET or "will" in [t.lower_ for t in doc[max(0, modifier.start - 3):modifier.start]]:
        return False
    if prev.lower_ in _DURATION_UNITS and prev.i >= 3 and doc[prev.i - 1].like_num and doc[prev.i - 2].lower_ in (
            "x", "×", "for"):  # "T2DM x 8 yrs on Tab. Metformin": the disease's years, then its drug
        return any(e.end == prev.i - 2 for e in doc.ents)
    return prev.lower_ in _TAKER or any(e.start <= prev.i < e.end for e in doc.ents)


_DURATION_UNITS = {"yrs", "yr", "years", "year", "y", "months", "month", "mos", "mo", "wks", "weeks"}


# a question mark written as a prefix (after a space, a bracket or the line start, not after a word:
# "Prior chemo? Yes" is a form's question)
_QUERY_BEFORE = re.compile(r"(?:^|(?<=[\s(\[\"'/,;:-]))\?\s?(?:[A-Za-z-]+\s){0,2}$")


_CONDITION_OPEN = re.compile(r"\b(?:if|unless|should|in\s+case|whether)\b", re.I)
_CONDITION_CLOSE = re.compile(r"[,:]|->|→|\bthen\b|\bconsider\b|\bswitch\b", re.I)


def _negation_in_condition(ent, mods) -> bool:
    """Every negation before the mention sits inside a condition that closes before it ("if still not
    tolerated, consider tamoxifen", "(if renal function does not allow: carboplatin)", "If no response,
    consider docetaxel"): the care is the condition's consequence, not what is denied."""
    doc = ent.doc
    neg = [m for m in mods if m.category == "NEGATED_EXISTENCE"]
    if not neg:
        return False
    for m in neg:
        start = doc[m.modifier_span[0]].idx
        start += len(re.match(r"\W*", doc.text[start:]).group())  # a cue written ": No" starts at its word
        if start >= ent.start_char:
            return False
        opened = list(_CONDITION_OPEN.finditer(doc.text, 0, start))
        if not opened or _CONDITION_CLOSE.search(doc.text, opened[-1].end(), start):
            return False
        if not _CONDITION_CLOSE.search(doc.text, start, ent.start_char):
            return False
    return True


def _query_parenthesis(ent) -> bool:
    """Inside a parenthesis that opens with a query mark: "(? adjuvant osimertinib / alectinib)"."""
    before = ent.doc.text[max(0, ent.start_char - 80):ent.start_char]
    opened = before.rfind("(")
    return opened >= 0 and ")" not in before[opened:] and before[opened + 1:].lstrip().startswith("?")
# "(06/01/2025): RUL 36 mm ...": the test's own date and a finding after a colon (not "(date): pending")
_DATED_RESULT_AFTER = re.compile(r"\s*\((?:on\s+)?\d{1,4}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\)\s*:\s*(?!(?:pending|booked|ordered|"
                                 r"requested|awaited|to\s+be|tbc|tbd|planned|scheduled)\b)\w", re.I)
_NOT_FOR = re.compile(r"\bnot\s+for\s+(?:further\s+|any\s+)?$", re.I)
# the clause after a mention ends in a question mark that no answer follows ("am I still supposed to do
# the radiation?", "restart letrozole?"); a form's "Prior chemo? Yes" is answered, so not a question
_QUESTION_AFTER = re.compile(r"[^.;!?\n\"]*\?(?!\s*(?:yes|y|no|n|none|nil|neg\w*|pos\w*|denies|done|completed?)\b)",
                             re.I)


def in_question(text: str, end: int) -> bool:
    """The mention ending at ``end`` sits in a clause that asks a question: care asked about is not
    care given. O(clause length)."""
    return bool(_QUESTION_AFTER.match(text, end))


# a drug with its course told in a history list ("tamoxifen x5 yrs", "FEC-T x6", "12 cycles") is over
_COURSE_GIVEN = re.compile(r"[^,;.\n(]{0,25}?(?:\bx\s?\d+|\b\d+\s*(?:cycles|yrs|years|months)\b)", re.I)


_FUTURE = re.compile(r"\b(?:will|shall|going\s+to|plans?\s+to|planned\s+to|to\s+be)\b"
                     # "Clinic review with Mr Hall after the CT": an appointment still to come
                     r"|^\W*(?:(?:clinic|OPD|outpatient|telephone|phone)\s+)?(?:review|f/u|follow[- ]?up|appointment|appt|"
                     r"visit)\s+(?:with|in|at|by)\b", re.I)


# a branch of a decision table: "(TNBC / HER2+: neoadjuvant therapy; HR+/HER2-: surgery first)",
# "stage I -> surgery, stage III -> chemoradiation": a label, an arrow or colon, then what to do (a
# word that is no result: "ER: positive; PR: negative" is a report, not a table)
# "This matters: dMMR/MSI-H stage II -> no adjuvant chemo; pMMR high-risk II -> CAPOX": after an arrow,
# "no" is the branch's care withheld; after a colon it is a result ("KRAS: no mutation")
_RESULT_WORD = (r"pos|neg|equivocal|wild|wt\b|mut|detected|amplified|low|high|present|absent|pending|unknown|n/a|"
                r"[\d<>≤≥~]")
_BRANCH = re.compile(r"(?:^|(?<=[(;,:])|\b(?:if|for)\b)\s*([^:;,()\n]{1,30}?)"
                     rf"(\s*(?::(?!\s*(?:not\b|no\b|none|{_RESULT_WORD}))|(?:->|→|=>)(?!\s*(?:{_RESULT_WORD}))))"
                     r"(?=\s*[A-Za-z])", re.I)
_BRANCH_LABELS = ("Biomarker", "Stage")


def in_decision_branch(ent) -> bool:
    """The mention is part of a table of two or more branches whose labels are biomarker or stage
    results ("HR+/HER2-: primary surgery"): a label is a condition the plan depends on, not the
    patient's result, and a branch's care is an option, not a plan. O(sentence + its mentions)."""
    sent = ent.sent if ent.sent is not None else ent.doc[:]
    found = [m for m in _BRANCH.finditer(sent.text)]
    labels = [(m.start(1) + sent.start_char, m.end(2) + sent.start_char) for m in found]
    ents = [e for e in sent.ents if e.label_ in _BRANCH_LABELS]
    branches = []
    for k, (a, b) in enumerate(labels):
        if any(a <= e.start_char and e.end_char <= b for e in ents):
            end = labels[k + 1][0] if k + 1 < len(labels) else sent.end_char
            branches.append((a, end))
    return len(branches) >= 2 and any(a <= ent.start_char and ent.end_char <= b for a, b in branches)


# a list item that opens with a condition and a colon: "- If HER2 amplified: neoadjuvant TCHP x 6 -> surgery"
_CONDITION_ITEM = re.compile(r"^[ \t]*(?:[-*•·](?!>)|\d{1,2}[.)])?[ \t]*if\b([^:\n]{1,60}):", re.I)
# a line that starts a new item or statement (not the wrapped rest of the one before)
_NEW_ITEM = re.compile(r"^(?:\S(?<![-→>])|[ \t]*(?:[-*•·](?!>)|\d{1,2}[.)]|\(?[a-h]\)|\(\d{1,2}\))[ \t])|^[ \t]*$")
# what may stand before a sentence on the line it opens: a bullet, a label of its own ("Meds: Synthroid")
_BULLET_ONLY = re.compile(r"[ \t]*(?:(?:[-*•·]|\d{1,2}[.)]|\(?[a-h]\)|\(\d{1,2}\))[ \t]*)?(?:[^\W\d][^:\n]{0,40}:[ \t]*)?$")
_CONDITION_LABELS = ("Biomarker", "Stage", "Test", "Problem", "Response", "Cancer")


def condition_item(text: str, spans, english: str | None = None) -> int | None:
    """Where the branch of a sentence that opens a conditional list item begins: "- If HER2 amplified: for
    neoadjuvant TCHP x 6 -> surgery" is one branch of a plan that waits on a result, the care after its colon
    an option. The condition must name a result, stage, finding or test (``spans``: the sentence's mentions
    as (start, end, kind)); "If tolerated: continue letrozole" names none and is no branch. ``english``: the
    sentence's gloss when it is written in another language ("3. Si réponse: résection hépatique"). O(len)."""
    m = _CONDITION_ITEM.match(english or text)
    outcome = bool(m and _OUTCOME.search(m.group(1)))  # "If response:", "If resectable:", "if progression:"
    if m and english is not None:
        colon = text.find(":")
        named = outcome or any(kind in _CONDITION_LABELS and a < colon for a, _, kind in spans)
        return colon + 1 if colon > 0 and named else None
    if m and (outcome or any(kind in _CONDITION_LABELS and m.start(1) <= a < m.end(1) for a, _, kind in spans)):
        return m.end()
    return None


_OUTCOME = re.compile(r"\b(?:response|responds?|responding|progress(?:ion|es)?|recurrence|relapse|resectable|"
                      r"unresectable|operable|inoperable|amplified|positive|negative|mutated|wild[- ]type)\b", re.I)


def opens_item(text: str, start: int) -> bool:
    """Does the sentence at ``start`` open a new line item of ``text`` (not the rest of a line, nor a line
    wrapped under an item)? O(line)."""
    line = text.rfind("\n", 0, start) + 1
    end = text.find("\n", line)
    return bool(_BULLET_ONLY.match(text[line:start]) and _NEW_ITEM.match(text[line:end if end >= 0 else len(text)]))


# a list item about a relative: "- Sister (41 y): adenocarcinoma of the ascending colon ...", "Father - colon ca"
_RELATIVE_ITEM = re.compile(r"^[ \t]*(?:(?:[-*•·]|\d{1,2}[.)])[ \t]*)?(?:(?:his|her|their|the\s+patient's|pt's)\s+)?"
                            r"(?:(?:maternal|paternal|older|younger|elder|twin)\s+)?(?:" + "|".join(_RELATIVES) +
                            r")\b(?!['’]s)[^:\n]{0,30}?(?::|\s[-–]\s)", re.I)
# a sentence under a relative's item that turns to the patient: "-> germline testing advised", "Pt had cascade
# testing", "referral placed"
_BACK_TO_PATIENT = re.compile(r"^\W*(?:->|→|=>)|\b(?:pt|patient|she\s+herself|he\s+himself|our\s+patient)\b|"
                              r"\b(?:advised|recommended|referral|referred|placed|sent|requested|ordered|offered|"
                              r"arranged|booked|today)\b", re.I)


def back_to_patient(sentence: str) -> bool:
    """Does a sentence that goes on a relative's item turn to the patient (an arrow, the patient named, care
    asked for her)? Then the item ends. O(len)."""
    return bool(_BACK_TO_PATIENT.search(sentence))


def relative_item(label: str) -> bool:
    """Does a line item open with a relative as its label ("- Sister (41 y):", "Father - ")? Then the whole item,
    its later sentences too, is that relative's history. ``label``: the item's opening words, in English. O(len)."""
    return bool(_RELATIVE_ITEM.match(label))


def in_conditional_item(ent) -> bool:
    """The care sits after the colon of a conditional list item the sentence opens (:func:`condition_item`)."""
    at = condition_item(ent.doc.text, [(e.start_char, e.end_char, e.label_) for e in ent.doc.ents])
    return at is not None and ent.start_char >= at


def _only_result_cues(ent, mods) -> bool:
    """Every negation cue reads as the result of this test ("MRI pelvis: no residual tumor", "was
    negative"): it stands after the mention. A cue before it ("records: no HER2-directed therapy")
    negates it."""
    def reads_as_result(m) -> bool:
        text = ent.doc[m.modifier_span[0]:m.modifier_span[1]].text
        return m.modifier_span[0] >= ent.end or (m.modifier_span[1] == ent.start and  # "a negative mammogram"
                                                  bool(re.fullmatch(_RESULT_WORDS, text, re.I)))

    negations = [ent.doc[m.modifier_span[0]:m.modifier_span[1]].text if reads_as_result(m) else "<before>"
                 for m in mods if m.category == "NEGATED_EXISTENCE"]
    if ent.label_ == "Test" and _RESULT_AFTER.match(ent.doc.text[ent.end_char:]):
        return True  # "UA negative, CXR without infiltrate": its own result, whatever the clause before denies
    return bool(negations) and all(_RESULT_CUES.match(n) for n in negations)


# a result written right after a test's name ("UA negative", "CXR without infiltrate", "CT: no mass")
# "#6 Hypothyroidism - TSH 2.1 (5/2025)", "ECG today QTc 438 ms" in an A/P: a test with its value was done
# (a date is no value: "Baseline CEA 6/10" is still to come)
_VALUE_AFTER = re.compile(r"\s*(?:\(\w+\)\s*)?(?::|=|today|stable|was|is|of|now|up|down|\s)*\s*[~<>≤≥]?\s*"
                          r"\d+(?:\.\d+)?(?!\d|\.\d|\s*[/-]\s*\d|[RL]\b)", re.I)  # "EBUS of 4R/7": stations, no value
_RESULT_AFTER = re.compile(rf"\s*:?\s*(?:(?:was|were|is|came\s+back)\s+)?(?:{_RESULT_WORDS}|without|no)\b", re.I)


_LABEL_NEGATED = re.compile(r"^\W*(?:none|no\b|not\b|never\b|n/a\b|declined|refused|deferred|held\b|omitted|"
                            r"not\s+(?:given|done|received|started|indicated))", re.I)
_LABEL_PLANNED = re.compile(r"^\W*(?:planned|plan\b|pending|scheduled|to\s+(?:start|begin|follow)|will\b|recommended|"
                            r"referred|referral|consult(?:ation)?\s+(?:placed|requested))", re.I)
_LABEL_DONE = re.compile(r"^\W*(?:completed|complete\b|done\b|finished|s/p\b|received|given\b|underwent)", re.I)


def label_assertion(rest: str) -> str | None:
    """The assertion of a topic label ("RT: never had the sim", "Chemo: planned", "Surgery: done 4/9")
    from the first words after its colon; None when they say nothing of the kind. A label is a topic,
    so the clause after it, not the label word, says whether the treatment happened."""
    if _LABEL_NEGATED.match(rest):
        return "negated"
    if _LABEL_PLANNED.match(rest):
        return "planned"
    if _LABEL_DONE.match(rest):
        return "historical"
    return None

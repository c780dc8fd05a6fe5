"""Oncology mentions the terminology alone does not give: cancers written as histology × site, and
treatment details (radiotherapy dose and fractions, drug dose and schedule, start dates).

A cancer is coded by composing its site and histology into Disease Ontology names ("adenocarcinoma of
the right lower lobe" → site lung, histology adenocarcinoma → DO "lung adenocarcinoma", DOID:3910),
backing off along the site and histology trees until a DO term exists (sigmoid colon → colon →
colorectal; mucinous adenocarcinoma → adenocarcinoma → carcinoma → cancer). Histology written alone
("moderately differentiated adenocarcinoma" in a colectomy specimen) takes its site from the note
(:func:`note_site`). The vocabularies below are general pathology and anatomy words, not phrases of
any particular note.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ingest.nlp import when

# canonical histology -> (surfaces, parent histology, implied site)
HISTOLOGY: dict[str, tuple[str, str | None, str | None]] = {
    # "primary" names the cancer only beside its site ("LUL primary", "the rectal primary"; see find_cancers)
    "cancer": (r"cancers?|ca|malignanc(?:y|ies)|malignant neoplasm|primary(?:\s+tumou?r)?", None, None),
    "carcinoma": (r"carcinomas?|(?-i:CA)", "cancer", None),
    "adenocarcinoma": (r"adeno-?carcinomas?|adeno\s?ca|adeno-ca|(?-i:adenoCA|AdenoCA)|adeno(?!ma)", "carcinoma", None),
    # "non-mucinous adenocarcinoma" is the plain one
    "mucinous adenocarcinoma": (r"(?<!non-)(?<!non )(?<!non)mucinous\s+adeno(?:-?carcinoma|ca)", "adenocarcinoma", None),
    "signet ring cell carcinoma": (r"signet[- ]ring(?:\s+cell)?\s+(?:adeno)?carcinoma", "adenocarcinoma", None),
    # a bare "squamous" names the cancer ("squamous NSCLC"), never the cells, lining or change it is a word of
    # ("nests of atypical squamous cells", "squamous metaplasia", "adenocarcinoma with squamous differentiation")
    "squamous cell carcinoma": (r"squamous(?:\s+cell)?(?:\s+(?:carcinoma|ca|cancer))?(?<!squamous)|squamous(?!\s+(?:cells|"
                                r"epitheli|mucosa|metaplas|differentiat|dysplas|papilloma|lining|intraepithelial|pearls|"
                                r"features|morphology|component))|(?-i:SqCC|SCC)", "carcinoma", None),
    "large cell carcinoma": (r"large[- ]cell(?:\s+(?:carcinoma|ca|cancer))?", "non-small cell carcinoma", None),
    "non-small cell carcinoma": (r"non-?\s?small[- ]cell(?:\s+(?:lung\s+)?(?:carcinoma|ca|cancer))?|(?-i:NSCLC)",
                                 "carcinoma", "lung"),
    "small cell carcinoma": (r"(?<!non-)(?<!non )(?<!non)small[- ]cell(?:\s+(?:lung\s+)?(?:carcinoma|ca|cancer))|(?-i:SCLC)",
                             "carcinoma", "lung"),
    "ductal carcinoma": (r"ductal\s+carcinoma|ductal\s+ca", "carcinoma", "breast"),
    # WHO's "invasive (breast) carcinoma of no special type" (NST) is the ductal carcinoma
    "invasive ductal carcinoma": (r"invasive\s+ductal\s+(?:carcinoma|ca|cancer)|infiltrating\s+ductal\s+(?:carcinoma|ca)|(?-i:IDC)|"
                                  r"(?:(?:invasive|infiltrating)\s+)?(?:breast\s+)?carcinoma,?\s+(?:of\s+)?no\s+special\s+type|"
                                  r"(?:invasive|infiltrating)\s+(?:breast\s+)?carcinoma,?\s+\(?(?-i:NST)\b\)?",
                                  "ductal carcinoma", "breast"),
    "invasive lobular carcinoma": (r"(?:invasive|infiltrating)\s+lobular\s+(?:carcinoma|ca|cancer)|(?-i:ILC)",
                                   "lobular carcinoma", "breast"),
    "lobular carcinoma": (r"lobular\s+(?:carcinoma|ca|cancer)", "carcinoma", "breast"),
    "ductal carcinoma in situ": (r"ductal\s+carcinoma\s+in\s+situ|(?-i:DCIS)", "ductal carcinoma", "breast"),
    # a neoplasm of its own kind (WHO): a rectal NET or a lung carcinoid is no "rectal cancer" or NSCLC, so
    # it never backs off to its organ's carcinoma
    "neuroendocrine carcinoma": (r"neuroendocrine\s+(?:carcinoma|tumou?r)|carcinoid(?:\s+tumou?r)?", None, None),
    "colorectal cancer": (r"(?-i:CRC|mCRC)", "cancer", "colorectal"),
    "breast cancer": (r"(?-i:MBC|mBC)", "cancer", "breast"),  # metastatic breast cancer
    # cell types of other organs: never a breast, lung or colorectal cancer by default
    # the pancreas's (and the prostate's) ductal cancer; "ductal carcinoma" alone is the breast's
    "ductal adenocarcinoma": (r"ductal\s+adeno-?carcinoma", "adenocarcinoma", None),
    "serous carcinoma": (r"serous(?:\s+(?:ovarian|tubo-?ovarian|primary\s+peritoneal|fallopian\s+tube|endometrial|"
                         r"uterine))?\s+(?:adeno-?)?carcinoma", "adenocarcinoma", None),
    # endometrioid: the endometrium's own cell type (or the ovary's), never a colorectal or lung cancer's
    "endometrioid adenocarcinoma": (r"endometrioid(?:\s+(?:ovarian|endometrial|uterine))?\s+(?:adeno-?)?carcinoma",
                                    "adenocarcinoma", "uterus"),
    "transitional cell carcinoma": (r"urothelial(?:\s+cell)?\s+(?:carcinoma|ca|cancer)|transitional[- ]cell\s+"
                                    r"(?:carcinoma|ca)|(?-i:TCC|UCC)", "carcinoma", None),
}
# canonical site -> (surfaces, parent site)
SITES: dict[str, tuple[str, str | None]] = {
    "breast": (r"(?:left|right|bilateral|L|R|lt|rt)?\s*breasts?|mammary", None),
    "lung": (r"lungs?|pulmonary|bronch(?:us|ial|ogenic)|(?:(?:left|right)\s+)?(?:upper|middle|lower)\s+lobe|"
             r"(?-i:RUL|RML|RLL|LUL|LLL)|lingula", None),
    # the small bowel is not the large: its adenocarcinomas are no colorectal cancers
    "small intestine": (r"small\s+(?:bowel|intestin(?:e|al))|(?:terminal\s+)?ile(?:um|al)|jejun(?:um|al)|"
                        r"duoden(?:um|al)", None),
    "colorectal": (r"colorectal|(?-i:CRC)|bowel|intestin(?:e|al)", None),
    "colon": (r"colon|colonic|(?:ascending|transverse|descending|sigmoid|right|left)\s+colon|sigmoid|cec(?:um|al)|"
              r"caec(?:um|al)|hepatic\s+flexure|splenic\s+flexure", "colorectal"),
    "rectum": (r"rect(?:um|al)|rectosigmoid(?:\s+junction)?|(?:low|mid|upper)\s+rectal", "colorectal"),
    # the anal canal is not the rectum: its squamous cancers have their own guidelines
    "anus": (r"anal\s+canal|anal(?!\s+verge)|anus|perianal", None),
    # organs of other cancers (no guideline here): a cancer there must never take a breast, lung or colorectal
    # code from the note. Organs that mostly host metastases (liver, bone, brain, nodes) are not primary sites.
    "prostate": (r"prostate|prostatic", None),
    "ovary": (r"ovary|ovaries|ovarian", None),
    "pancreas": (r"(?:(?:head|body|tail|neck|uncinate\s+process)\s+of\s+(?:the\s+)?)?pancreas|"
                 r"pancreatic(?:\s+(?:head|body|tail|neck|uncinate(?:\s+process)?))?", None),
    "stomach": (r"stomach|gastric", None),
    # the words patients and relatives use ("cancer of the gullet", "cancer of the womb", "voice box cancer")
    "esophagus": (r"o?esophagus|o?esophageal|gullet|food\s*pipe", None),
    "bladder": (r"(?:urinary\s+)?bladder", None),
    "kidney": (r"kidneys?", None),
    "uterus": (r"endometri(?:um|al)|uter(?:us|ine)|womb", None),
    # "cervical" alone is the neck's (nodes, spine)
    "cervix": (r"cervix|cervical(?=\s+(?:cancer|carcinoma|ca|adenocarcinoma|squamous))", None),
    "thyroid": (r"thyroid(?:\s+gland)?", None),
    "testis": (r"testis|testes|testicular", None),
    "larynx": (r"larynx|laryngeal|voice\s*box", None),
    # the head and neck's other sites: "L tonsil SCC", "HPV+ OPSCC" metastatic to the lung is no lung cancer
    "oropharynx": (r"oropharynx|oropharyngeal|tonsil(?:lar)?|base\s+of\s+(?:the\s+)?tongue|tongue\s+base", None),
    "oral cavity": (r"oral\s+cavity|oral\s+tongue|floor\s+of\s+(?:the\s+)?mouth|buccal\s+mucosa|gingival?", None),
    "nasopharynx": (r"nasopharynx|nasopharyngeal", None),
    "hypopharynx": (r"hypopharynx|hypopharyngeal|pyriform\s+fossa|piriform\s+sinus", None),
    "head and neck": (r"head\s+(?:and|&)\s+neck|(?-i:H&N)", None),
    "skin": (r"skin|cutaneous", None),
}
#: the sites graphkit's guidelines are written for (and the anus, which must not be read as the rectum)
GUIDELINE_SITES = ("breast", "lung", "colorectal", "colon", "rectum", "anus")
SITE_GROUP = {"breast": "breast", "lung": "lung", "colon": "colorectal", "rectum": "colorectal",
              "colorectal": "colorectal", "anus": "anus"}
# DO names use the noun ("rectum adenocarcinoma"); some use another word for the site
SITE_NAMES = {"colorectal": ("colorectal",), "colon": ("colon",), "rectum": ("rectum", "rectal"),
               "lung": ("lung",), "breast": ("breast",), "anus": ("anus", "anal"), "prostate": ("prostate",),
               "small intestine": ("small intestine", "duodenum", "ileum", "jejunum"),
               "ovary": ("ovarian", "ovary"), "pancreas": ("pancreatic", "pancreas"), "stomach": ("gastric", "stomach"),
               "esophagus": ("esophagus", "esophageal"), "bladder": ("bladder", "urinary bladder"),
               "kidney": ("kidney", "renal"), "uterus": ("endometrial", "uterine", "uterus"), "cervix": ("cervical", "cervix"),
               "thyroid": ("thyroid gland", "thyroid"), "testis": ("testicular", "testis"), "larynx": ("laryngeal", "larynx"),
               "oropharynx": ("oropharynx", "oropharyngeal", "tonsil"), "oral cavity": ("oral cavity", "tongue"),
               "nasopharynx": ("nasopharynx", "nasopharyngeal"), "hypopharynx": ("hypopharynx", "hypopharyngeal"),
               "head and neck": ("head and neck",), "skin": ("skin",)}
_HIST_IN_DO = {"cancer": ("cancer", "carcinoma"), "non-small cell carcinoma": ("non-small cell carcinoma",),
               "small cell carcinoma": ("small cell carcinoma",)}


def _union(prefix: str, patterns: list[str]) -> re.Pattern:
    """One regex naming each alternative ``<prefix><i>``, matched as whole words. The word-boundary
    checks sit outside the alternation (a failed lookahead backtracks into the next alternative, as
    if each had its own), so a position inside a word is rejected once, not once per alternative."""
    union = "|".join(f"(?P<{prefix}{i}>{p})" for i, p in enumerate(patterns))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{union})(?![A-Za-z0-9])", re.I)


_ORGAN_BEFORE = re.compile(r"(?<![A-Za-z])([A-Za-z]{4,})\s+$")


def _depth(hist: str) -> int:
    d = 0
    while HISTOLOGY[hist][1]:
        hist = HISTOLOGY[hist][1]
        d += 1
    return d


# the most specific histology first: "ductal carcinoma in situ" before "ductal carcinoma"
_HIST_NAMES = sorted(HISTOLOGY, key=lambda h: -_depth(h))
_HIST_RX = _union("h", [HISTOLOGY[h][0] for h in _HIST_NAMES])
_SITE_RX = _union("s", [p for p, _ in SITES.values()])
_SITE_NAMES_LIST = list(SITES)
# ("adenocarcinoma of the distal rectum": a part of the organ is the organ)
_LINK = re.compile(r"^\s*(?:(?:of|in|involving|arising\s+in|arising\s+from|from|at|within)\s+)?(?:the\s+)?"
                   r"(?:(?:distal|proximal|mid|middle|low|lower|upper|high)\s+)?$", re.I)
# "metastatic adenocarcinoma, consistent with colorectal origin", "metastatic carcinoma c/w breast primary":
# a histology found in one organ whose origin the pathologist names is a cancer of that origin
_ORIGIN_LINK = re.compile(r"^[\s,;(-]*(?:most\s+)?(?:consistent\s+w(?:ith|/)|c/w|compatible\s+with|suggestive\s+of|"
                          r"in\s+keeping\s+with|favou?ring|favou?r|of|from)\s+"
                          # "consistent with origin from the known oropharyngeal primary"
                          r"(?:(?:an?\s+)?origin\s+(?:from|in)\s+)?(?:an?\s+|the\s+)?"
                          r"(?:known\s+|prior\s+|previous\s+|(?:the\s+)?patient'?s\s+)?$", re.I)
# ("primary breast DLBCL", "primary pulmonary lymphoma": the site of a neoplasm of another kind)
_PRIMARY_HEAD = re.compile(r"\s+(?:origin|source|site|mass|lesion|nodule|lobe|opacity|consolidation|\w*lymphomas?|"
                           r"(?-i:DLBCL|NHL|MALT|GIST|NET)|\w*sarcomas?|melanomas?|phyllodes|mesotheliomas?|"
                           r"carcinoids?)\b", re.I)
_ORIGIN_WORD = re.compile(r"^\)?\s+(?:origin|primary|source)\b", re.I)
# "serous carcinoma, Mullerian (tubo-ovarian) origin": the origin named in a word and a bracket after the histology
_NAMED_ORIGIN_LINK = re.compile(r"^\s*,\s*(?:(?:of|from)\s+)?(?:[A-Za-z]+\s+)?\(?[A-Za-z]*-?$")
_GRADE = re.compile(r"(?:(?:well|moderately|poorly)[- ]differentiated|(?:high|low|intermediate)[- ]grade|invasive|"
                    r"infiltrating|metastatic|recurrent|primary|early[- ]stage|locally\s+advanced|advanced)\s+$", re.I)


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    name: str


def _hits(rx: re.Pattern, names: list[str], prefix: str, text: str) -> list[Hit]:
    out = []
    for m in rx.finditer(text):
        idx = int(m.lastgroup[len(prefix):])
        s, e = m.span()
        while s < e and text[s].isspace():
            s += 1
        out.append(Hit(s, e, names[idx]))
    return out


@dataclass(frozen=True)
class CancerFinding:
    start: int
    end: int
    histology: str
    site: str | None  # canonical site, None when the sentence does not say
    site_text: str | None = None  # the site as written ("sigmoid", "cecal"): DO has terms for some
    detail: dict = field(default_factory=dict, hash=False, compare=False)


def find_cancers(text: str) -> list[CancerFinding]:
    """Histology (with site when written next to it) in a sentence. O(len(text))."""
    hists = _hits(_HIST_RX, _HIST_NAMES, "h", text)
    sites = _hits(_SITE_RX, _SITE_NAMES_LIST, "s", text) if hists else []
    out: list[CancerFinding] = []
    used_sites: set[int] = set()
    for i, h in enumerate(hists):
        start, end, site = h.start, h.end, HISTOLOGY[h.name][2]
        hist = h.name
        site_text = None
        # "squamous NSCLC", "adeno NSCLC": a histology word before a site-implying one
        nxt = hists[i + 1] if i + 1 < len(hists) else None
        if nxt and not text[h.end:nxt.start].strip() and HISTOLOGY[nxt.name][2]:
            continue  # handled with the next hit
        # "NSCLC-SCC", "NSCLC-adeno": the site-implying name, a hyphen, then the histology
        if nxt and text[h.end:nxt.start] == "-" and HISTOLOGY[h.name][2] and not HISTOLOGY[nxt.name][2]:
            continue
        prev = hists[i - 1] if i > 0 else None
        if prev and not text[prev.end:h.start].strip() and HISTOLOGY[h.name][2]:
            start = prev.start
            if _depth(prev.name) >= _depth(h.name):
                hist = prev.name
        elif prev and text[prev.end:h.start] == "-" and HISTOLOGY[prev.name][2] and not HISTOLOGY[h.name][2]:
            start, site = prev.start, HISTOLOGY[prev.name][2]
        # site after: "adenocarcinoma of the right lower lobe"
        after = next((s for s in sites if s.start >= end and _LINK.match(text[end:s.start])), None)
        if after is not None and nxt is not None and not text[after.end:nxt.start].strip():
            after = None  # "Colon ca - ascending colon adenocarcinoma": that site is the next histology's
        before = next((s for s in reversed(sites) if s.end <= start and not text[s.end:start].strip()), None)
        if after is not None and text[h.start:h.end].lower() == "primary" and _PRIMARY_HEAD.match(text, after.end):
            continue  # "consistent with primary lung origin", "primary LUL mass": "primary" describes the noun
        if after is not None and HISTOLOGY[h.name][2] in (None, SITE_GROUP.get(after.name)):
            site, end = after.name, after.end
            site_text = text[after.start:after.end]
            used_sites.add(after.start)
        elif before is not None:
            site, start = before.name, before.start
            site_text = text[before.start:before.end]
            used_sites.add(before.start)
        if site is None:  # "serous ovarian carcinoma": the organ written inside the histology
            inner = next((s for s in sites if h.start <= s.start and s.end <= h.end), None)
            if inner is not None:
                site, site_text = inner.name, text[inner.start:inner.end]
                used_sites.add(inner.start)
        if site is None:
            origin = next((x for x in sites if x.start >= end and x.start - end <= 60 and
                           (_ORIGIN_LINK.match(text[end:x.start]) or _NAMED_ORIGIN_LINK.match(text[end:x.start]))
                           and _ORIGIN_WORD.match(text[x.end:])), None)
            if origin is not None:
                site, site_text = origin.name, text[origin.start:origin.end]
                used_sites.add(origin.start)
        if site is None and hist in ("cancer", "carcinoma"):
            organ = _ORGAN_BEFORE.search(text[:start])
            if organ and f"{organ.group(1).lower()} {hist}" in _do_index():
                start, site_text = organ.start(1), organ.group(1)
        g = _GRADE.search(text[:start])
        if g:
            start = g.start()
        if hist == "cancer" and site is None and site_text is None and (
                text[h.start:h.end].lower() in ("ca",) or text[h.start:h.end].lower().startswith("primary")):
            continue  # "ca" alone: calcium, California, "circa"; "primary" alone: primary care, surgery
        out.append(CancerFinding(start, end, hist, site, site_text))
    return out


# ("Colon NAD to caecum": the clinician's "no abnormality detected")
_NORMAL = re.compile(r"\b(?:unremarkable|normal|(?-i:NAD)\b|no\s+abnormalit(?:y|ies)\s+(?:detected|seen|found)|"
                     r"otherwise\s+(?:clear|negative|fine)|no\s+(?:other\s+|synchronous\s+|"
                     r"further\s+|additional\s+)?(?:mass|lesion|tumou?r|polyps?|abnormalit|neoplas))", re.I)
_TUMOUR = re.compile(r"\b(?:mass|tumou?r|lesion|cancer|carcinoma|adenocarcinoma|adenoca|malignan\w*|ca)\b", re.I)


_SPREAD = re.compile(r"\b(?:metastas[ie]s|metastatic\s+(?:deposits?|disease|nodules?)|mets|secondar(?:y|ies)|deposits)\b", re.I)


def site_mentions(text: str) -> Counter:
    """Canonical sites named in a sentence (for the note's site): none from a sentence that reports a
    normal organ ("colon to cecum otherwise unremarkable"), twice from one that names a tumour in it
    ("low rectum: ulcerated mass"). Clause by clause (";"): "lesion at the IC valve extending into the
    terminal ileum; rest of colon normal" names the ileum."""
    if ";" in text:
        return sum((site_mentions(part) for part in text.split(";")), Counter())
    if _NORMAL.search(text):
        return Counter()
    tumour = bool(_TUMOUR.search(text))
    if not tumour and _SPREAD.search(text):
        return Counter()  # "Lungs: 3 nodules (RLL, LUL, LLL), suspicious for metastases": where it spread, not its primary
    weight = 2 if tumour else 1
    # another organ counts only beside a tumour word: "thyroid function", "bladder scan" say nothing of the cancer
    out = Counter({k: v * weight for k, v in Counter(h.name for h in _hits(_SITE_RX, _SITE_NAMES_LIST, "s", text)).items()
                   if tumour or k in GUIDELINE_SITES})
    if tumour:  # "adenocarcinoma (TTF-1+, napsin A+)": the tumour's immunoprofile names its organ of origin
        out.update({site: 1 for site, rx in _IMMUNOPROFILE.items() if rx.search(text)})
    return out


_STAINED = r"\s*(?:\+|\(\+\)|positive|pos\b|\+ve)"
#: stains whose positivity in a carcinoma points to one organ (used only beside a tumour word)
_IMMUNOPROFILE = {"lung": re.compile(rf"\b(?:napsin(?:\s*-?A)?|TTF-?1){_STAINED}", re.I),
                  "colorectal": re.compile(rf"\b(?:CDX-?2|SATB2){_STAINED}", re.I),
                  "breast": re.compile(rf"\b(?:GATA-?3|mammaglobin){_STAINED}", re.I)}


def _do_index() -> dict[str, str]:
    from ingest.link.sources import do_name_index

    return do_name_index()


_SITE_WORDS = {"cecal": "cecum", "caecal": "cecum", "caecum": "cecum", "colonic": "colon", "rectal": "rectum",
               "pulmonary": "lung", "sigmoid": "sigmoid colon", "mammary": "breast"}
_LATERAL = re.compile(r"^(?:left|right|bilateral|l|r|lt|rt)\s+|^(?:low|mid|upper)\s+", re.I)


def _site_variants(site_text: str | None) -> list[str]:
    """The written site as DO might name it ("cecal" → "cecum", "sigmoid" → "sigmoid colon")."""
    if not site_text:
        return []
    t = _LATERAL.sub("", " ".join(site_text.lower().split()))
    return list(dict.fromkeys([_SITE_WORDS.get(t, t), t]))


def do_code(histology: str, site: str | None, site_text: str | None = None) -> str | None:
    """The most specific DOID for histology × site, backing off along both trees; the site as written is
    tried first ("sigmoid colon cancer", "cecum adenocarcinoma" are DO terms). O(depth²)."""
    index = _do_index()
    specific = [v for v in _site_variants(site_text) if v not in SITES]
    for hh in [histology, *([HISTOLOGY[histology][1]] if HISTOLOGY[histology][1] else [])]:
        for sname in specific:
            for hname in _HIST_IN_DO.get(hh, (hh,)):
                for name in (f"{sname} {hname}", f"{hname} of {sname}", f"{hname} of the {sname}"):
                    if name in index:
                        return index[name]
    sites = []
    s = site
    while s:
        sites.append(s)
        s = SITES[s][1]
    hists = []
    h = histology
    while h:
        hists.append(h)
        h = HISTOLOGY[h][1]
    group = SITE_GROUP.get(site) if site else None
    for hh in hists:
        for ss in sites:
            for sname in SITE_NAMES[ss]:
                for hname in _HIST_IN_DO.get(hh, (hh,)):
                    for name in (f"{sname} {hname}", f"{hname} of {sname}", f"{hname} of the {sname}"):
                        if name in index:
                            return index[name]
        # a histology that implies the site, named alone in DO ("invasive ductal carcinoma"), only after
        # the site's own term: DO's "small cell carcinoma" is of any organ, "lung small cell carcinoma" is
        if HISTOLOGY[hh][2] and HISTOLOGY[hh][2] == group and hh in index:
            return index[hh]
    if HISTOLOGY[histology][1] is None and histology != "cancer" and histology in index:
        return index[histology]  # an organ with no DO term for this kind: the kind's own term
    if site is None:
        if histology == "cancer":
            return index.get("cancer")  # "cancer", "malignancy" with no site: the generic DO term
        for hh in hists:
            if hh in index and hh not in ("cancer", "carcinoma"):
                return index[hh]
    return None


# -- metastases -------------------------------------------------------------------------------------------------
# site words → ICD-10-CM secondary neoplasm code (C77-C79)
METASTASIS_SITES = {
    "liver": (r"liver|hepatic", "C78.7"), "lung": (r"lungs?|pulmonary", "C78.00"),
    "pleura": (r"pleura|pleural", "C78.2"), "brain": (r"brain|cerebral|intracranial|CNS|leptomeningeal", "C79.31"),
    "bone": (r"bones?(?:[- ]only)?|osseous|bony|skeletal|spine|spinal|vertebral(?:\s+body)?", "C79.51"), "adrenal": (r"adrenal", "C79.70"),
    "peritoneum": (r"peritoneal|peritoneum|omental", "C78.6"),
    "lymph node": (r"(?:lymph\s+)?nodal|lymph\s+nodes?|(?-i:LN)", "C77.9"),
    "ovary": (r"ovarian|ovary|ovaries|(?-i:Krukenberg)", "C79.60"), "skin": (r"skin|cutaneous|subcutaneous|dermal", "C79.2"),
    # "visceral mets", "extrahepatic disease": metastases whose organ the words do not name
    "other": (r"visceral|extra-?hepatic|extra-?thoracic|soft[- ]tissue", "C79.9"),
}
SECONDARY_NEOPLASM = {  # ICD-10-CM descriptions of the codes above (checked against the code set)
    "C78.7": "Secondary malignant neoplasm of liver and intrahepatic bile duct",
    "C78.00": "Secondary malignant neoplasm of unspecified lung", "C78.2": "Secondary malignant neoplasm of pleura",
    "C79.31": "Secondary malignant neoplasm of brain", "C79.51": "Secondary malignant neoplasm of bone",
    "C79.70": "Secondary malignant neoplasm of unspecified adrenal gland",
    "C78.6": "Secondary malignant neoplasm of retroperitoneum and peritoneum",
    "C77.9": "Secondary and unspecified malignant neoplasm of lymph node, unspecified",
    "C79.9": "Secondary malignant neoplasm of unspecified site",
    "C79.60": "Secondary malignant neoplasm of unspecified ovary", "C79.2": "Secondary malignant neoplasm of skin",
}
_MET_WORD = r"metastas[ie]s|metastatic\s+(?:disease|deposits?|lesions?)|mets?|metastatic\s+foci|implants|carcinomatosis"
_MET_SITE_RX = "|".join(f"(?P<m_{k.replace(' ', '_')}>{p})" for k, (p, _) in METASTASIS_SITES.items())
_METASTASIS = re.compile(
    rf"(?<![A-Za-z])(?:(?:{_MET_SITE_RX})\s+(?:{_MET_WORD})|(?:{_MET_WORD})\s+(?:to|in|involving)\s+(?:the\s+)?"
    rf"(?:{_MET_SITE_RX.replace('?P<m_', '?P<n_')})|(?P<bare>(?:distant\s+)?metastatic\s+disease|"
    # "LYMPH NODE: metastatic carcinoma in 1/1", "negative for metastatic adenocarcinoma": a deposit named by
    # its histology alone is a metastasis ("metastatic NSCLC", "... carcinoma of the breast" name the cancer;
    # the pipeline adds the cancer a deposit proves beside it)
    rf"metastatic\s+(?:(?:poorly|moderately|well)[\s-]differentiated\s+)?"
    rf"(?:adeno|squamous\s+cell\s+|small\s+cell\s+|ductal\s+|lobular\s+|urothelial\s+)?carcinoma(?!\s+(?:of|from)\b)|"
    rf"distant\s+(?:metastas[ie]s|mets|disease)|metastases|metastasis|carcinomatosis)|"
    # "no peritoneal disease", "visceral disease", "extrahepatic disease": in a cancer note, deposits at sites
    # whose own diseases are not written so ("liver disease", "lung disease" are the organ's own)
    rf"(?P<d_peritoneum>peritoneal|omental)\s+(?:disease|deposits?)|(?P<d_lymph_node>nodal)\s+deposits?|"
    rf"(?P<d_other>visceral|extra-?hepatic|extra-?thoracic)\s+(?:disease|deposits?))(?![A-Za-z])", re.I)


#: a cheap pre-check before :data:`_METASTASIS` (most sentences name no deposit)
MAY_METASTASIS = re.compile(r"metasta|\bmets?\b|carcinomatosis|distant|(?:peritoneal|omental|nodal|visceral|hepatic|"
                            r"thoracic)\s+(?:disease|deposit)", re.I)


@dataclass(frozen=True)
class MetastasisFinding:
    start: int
    end: int
    site: str | None
    icd: str


def find_metastases(text: str) -> list[MetastasisFinding]:
    """"liver metastases", "mets to the brain", "metastatic disease", "metastatic carcinoma" (a deposit):
    secondary neoplasms with their ICD-10-CM
    code by site (C79.9 when no site is written). O(len(text))."""
    out = []
    for m in _METASTASIS.finditer(text):
        site = next((k for k in METASTASIS_SITES if any(m.groupdict().get(p + k.replace(" ", "_"))
                                                        for p in ("m_", "n_", "d_"))), None)
        if site is None and "carcinomatosis" in m.group().lower():
            site = "peritoneum"
        icd = METASTASIS_SITES[site][1] if site else "C79.9"
        out.append(MetastasisFinding(m.start(), m.end(), None if site == "other" else site, icd))
    return out


# -- treatment details ----------------------------------------------------------------------------------------
_RT_DOSE = re.compile(r"(?P<dose>\d{1,3}(?:\.\d{1,2})?)\s*(?:Gy|gray|cGy)\b(?:\s*(?:/|in|x|×|over)\s*"
                      r"(?P<fx>\d{1,2})\s*(?:fx|fractions?|treatments?)?)?", re.I)
_DRUG_DOSE = re.compile(r"^\s*(?P<dose>\d+(?:\.\d+)?\s*(?:mg|mcg|g|units?|mg/m2|mg/kg|AUC\s*\d|ml|mL)(?:/(?:m2|kg|day|d))?(?![A-Za-z/]))"
                        r"(?:\s+(?P<route>PO|po|IV|iv|SC|SQ|subcut(?:aneous(?:ly)?)?|oral(?:ly)?|by mouth|intravenous(?:ly)?|IM))?"
                        r"(?:\s+(?P<freq>daily|once daily|twice daily|BID|bid|TID|tid|QD|qd|q\d+\s?(?:h|hours|weeks?|w|d|days)|"
                        r"every\s+\d+\s+(?:hours|days|weeks)|weekly|nightly|at bedtime|qhs|QHS|prn|PRN|as needed))?"
                        r"(?:\s*[x×]\s?\d+(?:\s*(?:cycles?|wks?|weeks?|months?|yrs?|years?))?)?")
_CYCLES = re.compile(r"^\s*[x×]\s?\d+(?:\s*(?:cycles?|wks?|weeks?|months?|yrs?|years?))?(?![A-Za-z0-9])", re.I)
_START = re.compile(r"\b(?:since|started(?:\s+on)?|start(?:ed)?\s+date|initiated(?:\s+on)?|began|beginning|from)\s+"
                    rf"(?P<date>{when.DAY}|(?:\d{{1,2}}/)?\d{{1,2}}/\d{{2,4}}|\d{{4}}-\d{{2}}(?:-\d{{2}})?|{when.MONTH}\s+\d{{4}})",
                    re.I)


def rt_dose(text: str, start: int, end: int) -> tuple[int, dict] | None:
    """A radiation dose written right after a radiotherapy mention (or within it): (new end, detail)."""
    window = text[end:end + 40]
    m = _RT_DOSE.search(text[start:end]) or (_RT_DOSE.match(window.lstrip(" :,-(")) and _RT_DOSE.search(window))
    if not m:
        return None
    new_end = end if m.string is not window else end + m.end()
    detail = {"dose_gy": float(m.group("dose"))}
    if m.group("fx"):
        detail["fractions"] = int(m.group("fx"))
    return new_end, detail


def drug_detail(text: str, end: int) -> tuple[int, dict] | None:
    """Dose, route, frequency and number of cycles written right after a drug: (new end, detail)."""
    m = _DRUG_DOSE.match(text[end:end + 60])
    if not m or not m.group("dose"):
        c = _CYCLES.match(text[end:end + 20])
        if c:
            return end + c.end(), {"cycles": re.sub(r"\s+", "", c.group().strip())}
        return None
    detail = {k: m.group(k) for k in ("dose", "route", "freq") if m.group(k)}
    return end + m.end(), detail


def start_date(text: str, day_first: bool = False) -> str | None:
    """"since 3/2023", "started 2022-05" right after a treatment → "2023-03" (year-month, or the full date
    when written, "01/07/2024" read as the note writes its dates). ``text`` starts where the treatment's
    mention ends."""
    m = _START.search(text[:40])
    if m and re.search(r"[;.]|\band\b|,\s*(?:on|then)\b", text[:m.start()]):
        return None  # the date belongs to another clause
    if not m:
        return None
    d = m.group("date")
    parts = d.split("/")
    if len(parts) == 2 and len(parts[1]) == 2:
        mo, yr = parts
        if int(yr) <= 31:
            return None  # "since 4/29": a day of a month as likely as a year; no guess
        return f"{'19' if int(yr) > 50 else '20'}{yr}-{int(mo):02d}"
    return when.iso(d, day_first)


# -- treatment phase: before or after the operation ----------------------------------------------------------------
_BEFORE_OP = r"neo-?adjuvant|pre-?op(?:erative(?:ly)?)?|pre-?surgical|induction"
_AFTER_OP = r"adjuvant|post-?op(?:erative(?:ly)?)?|post-?surgical"
# ("after neoadjuvant nivo-chemo x3": a drug joined by a hyphen is one of the words between)
# ("s/p neoadjuvant (TCHP x6)": the course named in brackets after its phase)
_PHASE_LEFT = re.compile(rf"\b(?:(?P<before>{_BEFORE_OP})|(?P<after>{_AFTER_OP}))\s+"
                         rf"(?:(?!(?:then|and|followed|or)\b)[\w/+]+(?:\s+|-)){{0,2}}\(?$", re.I)
_PHASE_OWN = re.compile(rf"(?:(?P<before>{_BEFORE_OP}|(?-i:NACT|NAC|NST|NAST)\b)|(?P<after>{_AFTER_OP}))", re.I)
# ("6 doses of trastuzumab (neoadjuvant only)", "(only neoadjuvant)": a parenthesis names it too)
_PHASE_RIGHT = re.compile(rf"^\s*\(?\s*(?:[\w/+-]+\s+)?(?:(?P<before>(?:{_BEFORE_OP})\b|(?:before|prior\s+to)\s+(?:the\s+)?"
                          rf"(?:surgery|operation|resection))|(?P<after>(?:post-?op(?:eratively)?)\b|after\s+(?:the\s+)?"
                          rf"(?:surgery|operation|resection)))", re.I)


# "trastuzumab/pertuzumab were given only with the 6 neoadjuvant cycles": the course it was part of
# (each word possessive: a word is never split into two of the six, which cost ~1.5 ms per failed match)
_PHASE_PART_OF = re.compile(rf"^(?:\s*/?\s*[\w+-]++){{0,6}}?\s+(?:with|during|in|as\s+part\s+of)\s+(?:the\s+|all\s+|\d+\s+)*"
                            rf"(?:(?P<before>{_BEFORE_OP})|(?P<after>{_AFTER_OP}))\b", re.I)


def treatment_phase(text: str, start: int, end: int) -> str | None:
    """"He received all planned chemotherapy pre-op", "neoadjuvant FOLFIRINOX", "post-op RT": the side of
    the operation a treatment is on as the clause names it — "neoadjuvant" or "adjuvant" — else None.
    The date of a retold course is often only its note's; the phase still says where it belongs. O(1)."""
    own = _PHASE_OWN.match(text, start, end)  # "NACT", "neoadjuvant chemotherapy": the name says it
    if own:
        return "neoadjuvant" if own.group("before") else "adjuvant"
    left = _PHASE_LEFT.search(text[max(0, start - 40):start])
    if left:
        return "neoadjuvant" if left.group("before") else "adjuvant"
    right = _PHASE_RIGHT.match(text[end:end + 40]) or _PHASE_PART_OF.match(text[end:end + 70])
    if right:
        return "neoadjuvant" if right.group("before") else "adjuvant"
    return None


# -- procedure and imaging phrases ---------------------------------------------------------------------------------
_SIDE = r"(?:left|right|bilateral|L|R|lt|rt|B/L|b/l)"
BODY_SITES = (r"chest|abdomen|pelvis|abdomen/pelvis|abd/pelvis|C/A/P|CAP|A/P|chest/abdomen/pelvis|chest,\s+abdomen,?\s+"
              r"(?:and\s+)?pelvis|abdomen\s+and\s+pelvis|brain|head|neck|head\s+and\s+neck|spine|(?:cervical|"
              r"thoracic|lumbar|lumbosacral)\s+spine|[CLT]-spine|sinus(?:es)?|orbits?|thyroid|heart|cardiac|liver|"
              r"kidneys?|renal|bladder|prostate|breasts?|axilla|bones?|whole\s+body|skull|face|shoulder|elbow|wrist|"
              r"hand|fingers?|hip|knee|ankle|foot|feet|toes?|leg|arm|femur|tibia|humerus|ribs?|extremit(?:y|ies)|"
              r"(?:lower|upper)\s+extremit(?:y|ies)|lungs?|mediastinum|adrenals?|skin|joint|neck\s+and\s+chest")
_IMAGING_AFTER = re.compile(rf"^(?:\s+(?:scan|imaging|study|exam))?(?:\s+(?:of\s+)?(?:the\s+)?(?:{_SIDE}\s+)?"
                            rf"(?:{BODY_SITES}))(?:\s+(?:with(?:out)?|w/o?|w/wo|with\s+and\s+without)\s+"
                            rf"(?:IV\s+)?contrast)?(?![A-Za-z])", re.I)
_IMAGING_BEFORE = re.compile(rf"(?:^|(?<=\s))(?:(?:{_SIDE}\s+)?(?:{BODY_SITES})\s+|{_SIDE}\s+)$", re.I)
_PROC_BEFORE = re.compile(rf"(?:(?<![A-Za-z])(?:VATS|RATS|robotic(?:-assisted)?|laparoscopic|lap|open|minimally\s+invasive|"
                          rf"diagnostic|therapeutic|partial|total|radical|simple|modified\s+radical|bilateral|"
                          rf"{_SIDE}|(?-i:RUL|RML|RLL|LUL|LLL)|(?:right|left)\s+(?:upper|middle|lower)|"
                          rf"(?:upper|middle|lower)|ultra-?low|extended|completion|segmental|sigmoid|"
                          rf"(?:US|CT|ultrasound|stereotactic|MRI)-guided|image-guided)\s+)+$", re.I)


_FINDING_BEFORE = re.compile(rf"(?:(?<![A-Za-z])(?:{_SIDE}|(?-i:RUL|RML|RLL|LUL|LLL)|(?:right|left)\s+(?:upper|middle|lower)\s+lobe|"
                             rf"(?:upper|middle|lower)\s+lobe|hilar|mediastinal|axillary|supraclavicular|inguinal|"
                             rf"hepatic|liver|brain|bone|osseous|adrenal|pleural|peritoneal|pulmonary|lung|breast|"
                             rf"colonic|rectal|sigmoid|cecal|ascending|descending|transverse|subcapsular|endobronchial|"
                             rf"spiculated|part-solid|solid|ground-glass|enlarged|enhancing|punctate|suspicious|residual|"
                             rf"palpable|pedunculated|sessile|circumferential|synchronous|multiple|large|small|"
                             rf"subcentimeter|FDG-avid|hypermetabolic|hypodense|irregular|dominant|index|\d+(?:\.\d+)?\s?(?:cm|mm))"
                             rf"\s+)+$", re.I)
_FINDING_AFTER = re.compile(rf"^\s+(?:in|of|at|involving)\s+(?:the\s+)?(?:{_SIDE}\s+)?(?:(?:ascending|descending|"
                            rf"transverse|sigmoid)\s+colon|cecum|rectum|(?:right|left)\s+(?:upper|middle|lower)\s+lobe|"
                            rf"(?-i:RUL|RML|RLL|LUL|LLL)|liver|lungs?|brain|breast|axilla|mediastinum|pelvis|"
                            rf"seg(?:ment)?s?\s+\d(?:/\d)?)(?![A-Za-z])", re.I)


def finding_extent(text: str, start: int, end: int) -> tuple[int, int]:
    """A finding's span grown over its site and descriptors ("spiculated RUL mass", "mass in the
    ascending colon", "enlarged L hilar node")."""
    b = _FINDING_BEFORE.search(text[max(0, start - 80):start])
    if b:
        start -= len(b.group())
    a = _FINDING_AFTER.match(text[end:end + 60])
    if a:
        end += a.end()
    return start, end


def imaging_extent(text: str, start: int, end: int) -> tuple[int, int]:
    """An imaging test's span grown over its body site ("CT C/A/P", "MRI of the lumbar spine w/o contrast",
    "R breast US")."""
    m = _IMAGING_AFTER.match(text[end:end + 80])
    if m:
        end += m.end()
    b = _IMAGING_BEFORE.search(text[max(0, start - 40):start])
    if b:
        start -= len(b.group())
    return start, end


def procedure_start(text: str, start: int) -> int:
    """A procedure's span grown left over its approach, side and extent ("VATS LLL lobectomy", "robotic
    right hemicolectomy", "L lumpectomy")."""
    b = _PROC_BEFORE.search(text[max(0, start - 60):start])
    return start - len(b.group()) if b else start


def note_site(site_counts: Counter, cancer_sites: list[str]) -> str | None:
    """The note's cancer site: the site of its coded cancer mentions, else the site most named in it."""
    if cancer_sites:
        return Counter(cancer_sites).most_common(1)[0][0]
    # the anal canal counts too: a note about an anal cancer that also names the rectum is not a rectal one
    groups = Counter(site_counts)
    ranked = groups.most_common(2)
    if len(ranked) == 2 and ranked[0][1] == ranked[1][1] and {ranked[0][0], ranked[1][0]} == {"colon", "rectum"}:
        return "colorectal"  # as much colon as rectum: the note does not say which, the group it does
    return ranked[0][0] if ranked else None


# -- treatment course status -------------------------------------------------------------------------------------
# Verb cues of a treatment's course, nearest first. Planned/declined/negated are assertions (ConText),
# not statuses: a status says how a treatment that happened stands.
_STATUS_CUES = (
    ("stopped", r"stopped|discontinued|d/c'?d|held|halted|ceased|abandoned|terminated|off\s+(?:of\s+)?|"
                r"switched\s+from|(?:stopped|discontinued)\s+(?:early|prematurely)|due\s+to\s+(?:toxicity|intolerance)|"
                r"not\s+tolerated|intoleran(?:t|ce)"),
    ("completed", r"completed|complete[ds]?|finished|s/p|status\s+post|underwent|received|was\s+given|delivered|"
                  r"had\s+(?:a|an)?|post[- ]?(?:op|operative)|after\s+(?:\d+\s+)?cycles|x\s?\d+\s+cycles|"
                  r"\d+\s+(?:of\s+)?\d+\s+cycles|resected|performed|done|"
                  # "C4 TC (final) given", "last cycle given 2/10": the course's end
                  r"\(?final\)?\s+(?:cycle\s+|dose\s+)?given|(?:final|last)\s+(?:cycle|dose|fraction)"),
    ("ongoing", r"remains?\s+on|currently\s+on|still\s+on|continues?|continuing|currently|tolerating|cycle\s+\d+\s+(?:day|d)\s*\d+|"
                r"C\d+D\d+|maintenance|ongoing|taking"),
    ("started", r"started|starts|initiated|began|commenced|first\s+(?:dose|cycle|infusion)|C1D1|cycle\s+1\b"),
)
_STATUS_RX = [(status, re.compile(rf"(?<![A-Za-z])(?:{cues})(?![A-Za-z])", re.I)) for status, cues in _STATUS_CUES]
# "Completed RT, plan to start letrozole", "CRT done -> durvalumab": a plan or an arrow opens a new clause
#: a dash and a new subject start a statement: "implications of pelvic RT - she has completed her family"
DASH_NEW_SUBJECT = r"[-–—]+\s+(?:she|he|they|we|i)\s+(?:has|have|had|is|was|are|were|will|would|did|does|do)\b"
_CLAUSE_END = re.compile(r"[;.]\s|\bbut\b|\bthen\b|\bnow\b|->|→|\bplan(?:s|ned)?\b|\bwill\b|\s" + DASH_NEW_SUBJECT, re.I)

# "C1 cisplatin/vinorelbine given today", "FOLFOX-bevacizumab C6 given 28/04": a cycle of the clause, given
_CYCLE_GIVEN = re.compile(r"(?<![A-Za-z0-9/])(?-i:C)(\d{1,2})(?!\d)(?=[^.;\n]*?\b(?:given|administered|infused)\b)")


def treatment_status(text: str, start: int, end: int) -> str | None:
    """How a treatment mentioned at [start, end) stands in its clause: stopped, completed, ongoing or
    started (the cue nearest the mention wins; "stopped" beats the others in the same clause, since
    "completed 2 of 4 cycles, stopped for neutropenia" is a stop). None when the clause says nothing.
    O(clause length)."""
    left = text[max(0, start - 60):start]
    cut = max((m.end() for m in _CLAUSE_END.finditer(left)), default=0)
    left = left[cut:]
    right = text[end:end + 60]
    stop = _CLAUSE_END.search(right)
    right = right[:stop.start()] if stop else right
    found: list[tuple[int, int, str]] = []  # (priority, distance, status)
    for rank, (status, rx) in enumerate(_STATUS_RX):
        for m in rx.finditer(left):
            found.append((0 if status == "stopped" else 1, len(left) - m.end(), status))
        for m in rx.finditer(right):
            found.append((0 if status == "stopped" else 1, m.start(), status))
    if re.search(r"(?<![A-Za-z])on\s*$", left, re.I):
        found.append((1, 0, "ongoing"))  # "on letrozole": only right before the drug ("on 3/1" is a date)
    if not found:
        # "C1 cisplatin/vinorelbine given today", "FOLFOX-bevacizumab C6 given 28/04": a cycle given starts
        # (the first) or goes on with (a later one) its course; not "Xeloda cut 20% from C4"
        cycle = _CYCLE_GIVEN.search(left + text[start:end] + right)
        return ("started" if cycle.group(1) == "1" else "ongoing") if cycle else None
    return min(found)[2]


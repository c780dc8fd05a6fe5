"""Clinical facts with one owner each: stage and biomarker values (values.py) and the AJCC tables."""

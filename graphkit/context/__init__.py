"""Context compression for clinical notes: CPTF token filtering and the spans it must keep."""

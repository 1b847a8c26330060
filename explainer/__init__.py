"""Explain a classification data set with a short set of IF-THEN decision rules."""

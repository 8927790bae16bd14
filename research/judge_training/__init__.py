"""Making a T5 judge: distil labelled data with the reader (RA-ISF appendix A), fine-tune a
T5 checkpoint on it, export it to ONNX (optionally int8) and calibrate its thresholds."""

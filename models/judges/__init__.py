"""The judges: RA-ISF's judge (the reader prompted, or a T5 in ONNX) and the trained passage selector."""

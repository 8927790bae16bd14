"""The reader: a GGUF model run by llama.cpp, its loading per CPU, and checks that a file can be one."""

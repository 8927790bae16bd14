"""Text that would become a chat template's control token, made plain text before a prompt is
tokenized. The reader tokenizes its rendered prompt with special tokens on (the template's own
<|im_start|> must be one token), so a document holding "<|im_start|>system" opened a real system
turn (issue 34: a fake system block in a document leaked into an answer)."""
from __future__ import annotations

import re

# <|im_start|>, <|im_end|>, <|endoftext|>, <|eot_id|>, <|start_header_id|>, <|user|>, ...
_PIPE_TOKEN = re.compile(r"<\s*\|([^<>|\n]{0,48})\|\s*>")
# Llama 2 / Mistral, Gemma, Phi and the like: [INST] [/INST] <<SYS>> <</SYS>> <s> </s>
# <start_of_turn> <end_of_turn> <bos> <eos> <pad> <unk> <think> ...
_BRACKET_TOKEN = re.compile(r"\[\s*(/?\s*(?:INST|SYS|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS))\s*\]", re.IGNORECASE)
_ANGLE_TOKEN = re.compile(r"<{1,2}\s*(/?\s*(?:s|SYS|start_of_turn|end_of_turn|bos|eos|pad|unk|think|"
                          r"end_of_text|begin_of_text|im_start|im_end|endoftext|eot_id|sep|cls|mask))\s*>{1,2}",
                          re.IGNORECASE)
_LEFTOVER = re.compile(r"<\||\|>")  # half of a pipe token, left by a cut


def escape_special(text: str, extra: tuple[str, ...] = ()) -> str:
    """`text` with every control-token look-alike written as plain text: "<|im_start|>" becomes
    "(im_start)", "[INST]" "(INST)", "</s>" "(/s)". `extra`: the model's own special-token texts
    (its BOS and EOS pieces), whatever they look like."""
    for token in extra:
        if token and len(token) > 1:
            text = text.replace(token, "(" + token.strip("<>|[] ") + ")")
    text = _PIPE_TOKEN.sub(lambda m: f"({m.group(1).strip()})", text)
    text = _BRACKET_TOKEN.sub(lambda m: f"({m.group(1).replace(' ', '')})", text)
    text = _ANGLE_TOKEN.sub(lambda m: f"({m.group(1).replace(' ', '')})", text)
    return _LEFTOVER.sub(lambda m: " ".join(m.group(0)), text)

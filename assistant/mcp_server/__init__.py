"""`assistant mcp`: the assistant as an MCP server (Model Context Protocol, over stdio) for agents
and MCP clients (Claude Desktop, LM Studio, Jan, Open WebUI): search the documents, ask with
citations and an honesty label, list what is indexed. A front end like the CLI: it calls the
services only. The official `mcp` SDK is known here alone."""

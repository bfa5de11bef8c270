"""The top-level help, kept as plain text so ``ai --help`` needs no imports.

A test checks that every option of the real command appears here.
"""

TOP_LEVEL_HELP = """\
Usage: ai [OPTIONS] [QUESTION]...
       ai COMMAND [ARGS]...

  A terminal AI shell assistant. `ai "question"` answers once and exits;
  `ai` alone starts the interactive shell (REPL). Piped stdin is context:
  `git diff | ai "review this"`.

Options:
  -m, --model MODEL      litellm model string, e.g. openai/gpt-4o,
                         anthropic/claude-sonnet-4-5, gemini/gemini-2.5-flash,
                         ollama_chat/llama3.1
  --api-base URL         provider base URL (OpenAI-compatible servers, Ollama)
  --approval MODE        strict | ask (default) | auto-edit | yolo
  -y, --yes              same as --approval yolo
  --sandbox MODE         auto (default) | read-only | workspace-write | off
  --json                 print events as JSON lines instead of rendered text
  -c, --continue         continue the most recent session
  --session ID           continue that session
  --no-tools             plain chat: offer no tools to the model
  -s, --shell            ask for one shell command, then run / edit / describe it
  --explain              explain a shell command in a few lines
  -i, --image FILE       attach an image (png, jpeg, gif, webp); repeatable
  --debug                show full tracebacks and provider details
  --trust                use this folder's .swebash/ settings without asking
  -V, --version          print the version and exit
  -h, --help             show this message and exit

Commands:
  sessions list|show ID|delete ID|export ID   stored conversations
  config show|init|path|forget RULE           configuration ("forget": drop a remembered
                                              "always" rule of this workspace)
  tools                                       tools and whether each asks first
  undo [--yes]                                revert the file changes of the last turn here
  mcp list                                    MCP servers, their state and tools
  config trust list|revoke PATH               trusted project folders
  sync [--status|--verify]                    upload to the team store now
  audit [--host H] [--user U] [--since WHEN]  every tool call and who allowed it
  shell-init bash|zsh|fish [--key KEY]        a key binding: wish on the line -> command
  fix [N]                                     why this terminal's last failed command failed,
                                              and a corrected command to run / edit / copy
  help                                        this help

Exit codes: 0 done, 1 error, 2 usage error, 130 interrupted.
Configuration: `ai config path` (see config.example.toml for every key).
"""


def top_level_help(prog: str = "ai") -> str:
    """The help, naming the program as it was called (``swebash --help``)."""
    if prog == "ai":
        return TOP_LEVEL_HELP
    return TOP_LEVEL_HELP.replace("Usage: ai ", f"Usage: {prog} ", 1).replace(
        "       ai COMMAND", f"       {prog} COMMAND", 1)

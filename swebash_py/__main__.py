"""`python -m swebash_py` runs the same program as `ai`."""

from swebash_py.cli.main import main

if __name__ == "__main__":
    main()

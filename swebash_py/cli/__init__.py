"""The front door: arguments, help, the error boundary and the one-shot runner."""

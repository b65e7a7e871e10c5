// Placeholder: this target's sources arrive with its issue.

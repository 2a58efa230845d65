"""Token embedding (docs/layers/embed.md): y[i] = word[ids[i]] + position[i] for public ids."""

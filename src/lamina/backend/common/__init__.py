"""Engine-agnostic pieces of the backend seam: variables and the stateless scope."""

"""Bad-actor validation: an attack library with success detectors, and refusal detection."""

from assay.attacks.refusal import RefusalVerdict, detect_refusal, is_refusal

__all__ = ["RefusalVerdict", "detect_refusal", "is_refusal"]

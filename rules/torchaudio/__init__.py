"""ADV950–ADV989: torchaudio (windows in torchaudio versions; `library = "torchaudio"`)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "torchaudio"
CODES = ("ADV950-ADV989",)

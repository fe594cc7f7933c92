"""ADV950–ADV989: torchaudio (windows in torchaudio versions; `library = "torchaudio"`)."""

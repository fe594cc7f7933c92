"""ADV910–ADV949: torchvision (windows in torchvision versions; `library = "torchvision"`)."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "torchvision"
CODES = ("ADV910-ADV949",)

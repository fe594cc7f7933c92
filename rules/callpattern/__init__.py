"""ADV130–ADV149: call patterns torch warns about from C++ (`TORCH_WARN`): the warning is in no `.py` file of the wheel."""

# The family's manifest: the registry checks every rule's code against CODES; the report prints TITLE.
TITLE = "Call patterns torch warns about from C++"
CODES = ("ADV130-ADV149",)

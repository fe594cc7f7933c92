"""ADV130–ADV149: call patterns torch warns about from C++ (`TORCH_WARN`): the warning is in no `.py` file of the wheel."""

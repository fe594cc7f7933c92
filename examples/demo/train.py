"""A small training script written for torch 2.4, to show what `advisor` reports."""
import json

import torch
from torch.cuda.amp import GradScaler, autocast


def train(model, loader, opt):
    scaler = GradScaler()
    step = torch.compile(opt.step)
    for x, y in loader:
        with autocast(dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return step


def capture(model, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(x)
        if torch.cuda.is_current_stream_capturing() and out.sum().item() > 0:
            out = out * 2
    return g, out


def profile(model, x):
    with torch.autograd.profiler.profile(use_cuda=True) as prof:
        model(x)
    print(prof.key_averages()[0].cuda_time_total)
    prof.export_chrome_trace("trace.json")
    return json.load(open("trace.json"))

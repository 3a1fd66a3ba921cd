# model_bench_torch.py: the models of bench/model_bench.c in PyTorch (eager, CPU), for the
# baseline column. model_bench runs it with /usr/bin/python3 (Debian's python3-torch):
#
#   model_bench_torch.py --threads 1,2 --models mlp-b1,cnn
#
# prints "RESULT <model> <threads> <ms per inference>" per pair, or "NOTORCH <why>" and exits 0
# when torch cannot be imported. Same shapes and operators as model_bench_models.c, random
# weights (the values do not change the time of these dense kernels).
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 - any import failure means no baseline
    print("NOTORCH %s" % str(e).replace("\n", " "))
    sys.exit(0)


def rnd(*shape):
    return torch.rand(*shape, dtype=torch.float32) - 0.5


def mlp(batch):
    x = rnd(batch, 784)
    ws = [(rnd(784, 512), rnd(512)), (rnd(512, 256), rnd(256)), (rnd(256, 10), rnd(10))]

    def run():
        h = x
        for i, (w, b) in enumerate(ws):
            h = torch.matmul(h, w) + b
            if i < 2:
                h = torch.relu(h)
        return h
    return run


def cnn():
    x = rnd(1, 3, 32, 32)
    w1, b1 = rnd(16, 3, 3, 3), rnd(16, 1, 1)
    w2, b2 = rnd(32, 16, 3, 3), rnd(32, 1, 1)
    wf, bf = rnd(2048, 10), rnd(10)

    def run():
        h = F.max_pool2d(torch.relu(F.conv2d(x, w1, padding=1) + b1), 2, 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, w2, padding=1) + b2), 2, 2)
        return torch.matmul(h.reshape(1, 2048), wf) + bf
    return run


def transformer():
    S, H, NH, D = 64, 128, 4, 32
    x, g, b = rnd(S, H), rnd(H), rnd(H)
    wq, wk, wv, wo = rnd(H, H), rnd(H, H), rnd(H, H), rnd(H, H)

    def run():
        ln = F.layer_norm(x, (H,), g, b, eps=1e-5)
        q = torch.matmul(ln, wq).reshape(S, NH, D).permute(1, 0, 2)
        k = torch.matmul(ln, wk).reshape(S, NH, D).permute(1, 2, 0)
        v = torch.matmul(ln, wv).reshape(S, NH, D).permute(1, 0, 2)
        p = torch.softmax(torch.matmul(q, k) * 0.17677669529663687, dim=-1)
        o = torch.matmul(p, v).permute(1, 0, 2).reshape(S, H)
        return x + torch.matmul(o, wo)
    return run


def resnet_block():
    x = rnd(1, 64, 56, 56)
    w1, b1 = rnd(64, 64, 3, 3), rnd(64, 1, 1)
    w2, b2 = rnd(64, 64, 3, 3), rnd(64, 1, 1)

    def run():
        r1 = torch.relu(F.conv2d(x, w1, padding=1) + b1)
        return torch.relu(F.conv2d(r1, w2, padding=1) + b2 + x)
    return run


def tiny_ops():
    x, y = rnd(4), rnd(4)

    def run():
        h = x
        for _ in range(1000):
            h = h + y
        return h
    return run


MODELS = {"mlp-b1": lambda: mlp(1), "mlp-b32": lambda: mlp(32), "cnn": cnn,
          "transformer": transformer, "resnet-block": resnet_block, "tiny-ops": tiny_ops}


def time_ms(run):
    for _ in range(3):
        run()
    t0 = time.perf_counter()
    run()
    one = max(time.perf_counter() - t0, 1e-6)
    iters = max(1, int(0.15 / one))
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            run()
        samples.append((time.perf_counter() - t0) / iters * 1e3)
    return statistics.median(samples)


def main(argv):
    threads, models = [1, 2], list(MODELS)
    i = 0
    while i < len(argv):
        if argv[i] == "--threads":
            threads = [int(t) for t in argv[i + 1].split(",")]
            i += 1
        elif argv[i] == "--models":
            models = argv[i + 1].split(",")
            i += 1
        i += 1
    with torch.no_grad():
        for t in threads:
            torch.set_num_threads(t)
            for name in models:
                if name in MODELS:
                    print("RESULT %s %d %.4f" % (name, t, time_ms(MODELS[name]())), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

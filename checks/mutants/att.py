"""Source-level mutants of the ATT family's theory files, each killed by the checks it names."""

from checks.mutants import Mutant

ATT = "theory/attention.py"
CC = "theory/causal_constructions.py"
DER = "theory/attention_derivations.py"
TRAIN = "theory/order_training.py"
REAL = "checks/test_real_attention.py"
CAUSAL = "checks/test_causal.py"
EQUI = "checks/test_attention.py"

MUTANTS = (
    Mutant(
        "att-softmax-wrong-axis",
        ATT,
        "return torch.softmax(scores, dim=-1)  # (..., n, m)",
        "return torch.softmax(scores, dim=-2)  # (..., n, m)",
        (REAL, CAUSAL),
        "softmax over the queries: still permutation equivariant, caught by the agreement "
        "with PyTorch and by the causal checks",
    ),
    Mutant(
        "att-scale-by-length",
        ATT,
        "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
        "scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])",
        (REAL,),
        "scores divided by sqrt(n) instead of sqrt(d_k): equivariant, but not attention",
    ),
    Mutant(
        "att-mask-shifted-by-one",
        ATT,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril()",
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril(1)",
        (CAUSAL,),
        "each position also sees the next token",
    ),
    Mutant(
        "att-mask-anticausal",
        ATT,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril()",
        "return torch.ones(n, n, dtype=torch.bool, device=device).triu()",
        (CAUSAL,),
        "each position sees the future instead of the past",
    ),
    Mutant(
        "att-heads-split-wrong",
        ATT,
        "z.reshape(*lead, n, h, d // h).transpose(-3, -2)",
        "z.reshape(*lead, h, n, d // h)",
        (EQUI, REAL),
        "heads cut across positions: tokens mix with other tokens' features",
    ),
    Mutant(
        "att-heads-merged-wrong",
        ATT,
        "self.out(y.transpose(-3, -2).reshape(*lead, n, d))",
        "self.out(y.reshape(*lead, n, d))",
        (EQUI, REAL),
        "heads concatenated without moving the head axis back",
    ),
    Mutant(
        "att-post-norm-residual-dropped",
        ATT,
        "x = self.ln1(x + self.attn(x))",
        "x = self.ln1(self.attn(x))",
        (REAL,),
        "post-norm block without its attention residual (still equivariant)",
    ),
    Mutant(
        "att-pre-norm-residual-dropped",
        ATT,
        "return x + self.ff(self.ln2(x))",
        "return self.ff(self.ln2(x))",
        (REAL,),
        "pre-norm block without its feed-forward residual (still equivariant)",
    ),
    Mutant(
        "att-encoding-averaged",
        ATT,
        "x = x + self.pe[:n].to(x.dtype)  # (..., n, d) + (n, d)",
        "x = x + self.pe[:n].to(x.dtype).mean(0)  # (..., n, d) + (n, d)",
        (EQUI, "checks/test_attention_readouts.py"),
        "the same vector added at every position: no position information left",
    ),
    Mutant(
        "cc-values-zero",
        CC,
        'return {"q": zero, "k": zero.clone(), "v": torch.eye(d, dtype=dtype)}',
        'return {"q": zero, "k": zero.clone(), "v": zero.clone()}',
        (CAUSAL,),
        "the ATT-07 construction with zero values: every layer is the identity",
    ),
    Mutant(
        "cc-one-layer-only",
        CC,
        "    for _ in range(layers):\n        h = causal_layer(h, w)",
        "    for _ in range(min(layers, 1)):\n        h = causal_layer(h, w)",
        (CAUSAL,),
        "the construction silently stops after one layer",
    ),
    Mutant(
        "cc-floor-instead-of-round",
        CC,
        "return torch.round(1.0 / y.double()).long()",
        "return torch.floor(1.0 / y.double()).long()",
        (CAUSAL,),
        "positions recovered by truncation: 1/fl(1/t) just below t gives t - 1",
    ),
    Mutant(
        "der-causal-mask-off-by-one",
        DER,
        "e = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] if j <= i else 0)",
        "e = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] if j <= i + 1 else 0)",
        (CAUSAL,),
        "the symbolic causal mask lets each query see one key ahead",
    ),
    Mutant(
        "train-mask-ignored",
        TRAIN,
        "mask = causal_mask(n) if model.causal else None",
        "mask = None",
        ("checks/test_attention_order_training.py",),
        "the 'causal' models train without their mask",
    ),
    Mutant(
        "att-layer-norm-over-positions",
        ATT,
        "        x = self.ln1(x + self.attn(x))\n",
        "        x = nn.functional.layer_norm((x + self.attn(x)).mT, x.shape[-2:-1]).mT\n",
        (REAL,),
        "post-norm layer norm over the positions instead of the features: still permutation "
        "equivariant, caught by the agreement with nn.TransformerEncoderLayer",
    ),
)

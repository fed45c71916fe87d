"""The *Sharing modes* tab: parameters per mode, recorded ablation runs, layer-to-layer transitions."""

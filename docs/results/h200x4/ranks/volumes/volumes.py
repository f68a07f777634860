# Host simulation of the distributed exchange's volumes (docs/distributed.md). Run in a directory
# holding each rank's keys: warpsort generate --dist D --n 2^22 --seed 1+r --output D_r.npy, r = 0..3.
import numpy as np
P=4
def volumes(keys):
    # keys: list of P arrays (each rank's N keys). Global order by (key, rank, position);
    # rank d receives global ranks [d N, (d+1) N). Returns v[s][d] for the current tie rule and
    # for a tie rule that keeps each rank's own copies of a key where the rank is a destination.
    N=len(keys[0]); total=P*N
    allk=np.concatenate(keys); src=np.repeat(np.arange(P),N)
    order=np.lexsort((np.arange(total),src,allk))  # by key, then rank, then position
    dest=np.arange(total)//N
    v=np.zeros((P,P),dtype=np.int64)
    np.add.at(v,(src[order],dest),1)
    # locality-aware: per distinct key value, the destinations' quotas of that value are fixed
    # (the same global positions); assign copies to maximise kept (own rank == destination)
    sk=allk[order]; ss=src[order]
    vals,start=np.unique(sk,return_index=True)
    end=np.append(start[1:],total)
    w=np.zeros((P,P),dtype=np.int64)
    for a,b in zip(start,end):
        quota=np.bincount(dest[a:b],minlength=P)     # copies each destination takes
        have=np.bincount(ss[a:b],minlength=P)        # copies each source holds
        keep=np.minimum(quota,have)
        for s in range(P): w[s][s]+=keep[s]
        q=quota-keep; h=have-keep
        # the rest in (source, destination) order, as the current rule would among the rest
        si=di=0
        while q.sum()>0:
            while h[si]==0: si+=1
            while q[di]==0: di+=1
            m=min(h[si],q[di]); w[si][di]+=m; h[si]-=m; q[di]-=m
    return v,w
for d in ['deterministic_duplicates','entropy_0.201','uniform']:
    keys=[np.load(f'{d}_{r}.npy') for r in range(P)]
    N=len(keys[0])
    v,w=volumes(keys)
    for name,m in (('today',v),('keep own',w)):
        recv=[int(m[:,j].sum()-m[j,j]) for j in range(P)]; send=[int(m[j,:].sum()-m[j,j]) for j in range(P)]
        print(d,name,'max recv / uniform 3N/4: %.3f'%(max(recv)/(0.75*N)),'max send: %.3f'%(max(send)/(0.75*N)),'moved %.3f N'%(sum(send)/N))
    print((v/N).round(3))
print('--- keep own matrices, max off-diagonal link')
for d in ['deterministic_duplicates','entropy_0.201']:
    keys=[np.load(f'{d}_{r}.npy') for r in range(P)]
    N=len(keys[0]); v,w=volumes(keys)
    off=lambda m: max(m[i][j] for i in range(P) for j in range(P) if i!=j)/N
    print(d,'today max link %.3f N, keep own max link %.3f N'%(off(v),off(w)))
    print((w/N).round(3))
